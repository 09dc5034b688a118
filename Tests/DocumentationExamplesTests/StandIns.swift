import Foundation
import GRPCCore
import OpenAPIRuntime
import SecureSession

// What README.md's examples take from the program around them, stood in for so that they
// compile: an application's types, a client swift-openapi-generator would generate, a gRPC
// service, and the `Bundle.module` SwiftPM makes for a target with resources.

/// An application's decoded answer.
struct User: Decodable {}

/// An application's value, sent and answered as JSON.
struct Item: Codable {}

/// What swift-openapi-generator generates for a partner's document: its client…
struct Client {
    init(serverURL: URL, transport: any OpenAPIRuntime.ClientTransport) {}
}

/// …and its servers.
enum Servers {
    static func server1() throws -> URL { URL(string: "https://api.partner.example")! }
}

/// An application's gRPC service.
struct PaymentsService: RegistrableRPCService {
    func registerMethods<Transport: GRPCCore.ServerTransport>(with router: inout RPCRouter<Transport>) {}
}

/// An application's error.
struct PaymentsUnavailable: Error {}

extension Bundle {
    /// The bundle of a target's resources, as SwiftPM makes it.
    static var module: Bundle { .main }
}

/// An application's login, sent as JSON.
struct Credentials: Encodable {}

/// An application's record, read from JSON lines.
struct Order: Decodable, Sendable {}

/// Where an application keeps its bearer token.
actor TokenStore {
    func current() async throws -> String { "token" }
    func refresh() async -> Bool { false }
}

/// An application's interceptor adding its bearer token (as the `RequestInterceptor` example
/// writes it).
struct BearerToken: RequestInterceptor {
    let tokens: TokenStore
}

/// What signs an application's requests.
struct RequestSigner {
    func signature(for request: SecureRequest) async throws -> String { "signature" }
}
