#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import PKIBuilder
import SecureSession
import SecureSessionOpenAPI
import TestServers
import Testing
import TransportSecurity

@Suite("An OpenAPI client transport over SecureSession")
struct SecureSessionTransportTests {
    let lab = try! TrustLab()

    func collect(_ body: HTTPBody?) async throws -> String {
        guard let body else { return "<none>" }
        return try await String(collecting: body, upTo: 1 << 20)
    }

    @Test("method, base URL with a path, path and query, fields and body go out; status, fields and body come back, any status; HEAD has no body")
    func roundTrip() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session()
        let transport = SecureSessionTransport(session: session)
        var request = HTTPRequest(method: .post, scheme: String?.none, authority: String?.none, path: "/echo")
        request.headerFields[HTTPField.Name.contentType] = "text/plain"
        let (response, body) = try await transport.send(request, body: HTTPBody("order #7"), baseURL: server.url("/"), operationID: "createOrder")
        #expect(response.status == .ok)
        #expect(response.headerFields[HTTPField.Name("X-Method")!] == "POST")
        #expect(response.headerFields[HTTPField.Name.contentType] == "text/plain")
        #expect(try await collect(body) == "order #7")

        let (_, target) = try await transport.send(
            HTTPRequest(method: .get, scheme: String?.none, authority: String?.none, path: "/orders/a%20b?status=open&page=2"),
            body: nil, baseURL: server.url("/target/v1"), operationID: "listOrders"
        )
        #expect(try await collect(target) == "/target/v1/orders/a%20b?status=open&page=2")
        // A path beginning with `//` (an empty first parameter) is a path, not an authority.
        let (_, doubled) = try await transport.send(
            HTTPRequest(method: .get, scheme: String?.none, authority: String?.none, path: "//items?x=1"),
            body: nil, baseURL: server.url("/target/v1"), operationID: "listItems"
        )
        #expect(try await collect(doubled) == "/target/v1//items?x=1")
        for bad in ["items", "*"] {
            await #expect(throws: SecureSessionError.self, "\(bad)") {
                _ = try await transport.send(
                    HTTPRequest(method: .get, scheme: String?.none, authority: String?.none, path: bad), body: nil, baseURL: server.url("/"), operationID: "x"
                )
            }
        }

        let (missing, missingBody) = try await transport.send(HTTPRequest(method: .get, scheme: String?.none, authority: String?.none, path: "/status/404"), body: nil, baseURL: server.url("/"), operationID: "x")
        #expect(missing.status.code == 404)
        #expect(try await collect(missingBody) == "status 404")

        let (head, headBody) = try await transport.send(HTTPRequest(method: .head, scheme: String?.none, authority: String?.none, path: "/hello"), body: nil, baseURL: server.url("/"), operationID: "x")
        #expect(head.status == .ok)
        #expect(headBody == nil)

        let (_, large) = try await transport.send(HTTPRequest(method: .get, scheme: String?.none, authority: String?.none, path: "/bytes/300000"), body: nil, baseURL: server.url("/"), operationID: "x")
        let bytes = try await [UInt8](collecting: try #require(large), upTo: 1 << 20)
        #expect(bytes.count == 300_000)
        #expect(large?.length == .known(300_000))
        await session.shutdown()
        await server.stop()
    }

    @Test("the session's policy decides: a server with another key is rejected with the session's error; a body that can be read once cannot follow a 307")
    func policyAndReplays() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let impostor = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.proxyRoot))
        let session = lab.session(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.root.der]))
        let transport = SecureSessionTransport(session: session)
        await #expect {
            _ = try await transport.send(HTTPRequest(method: .get, scheme: String?.none, authority: String?.none, path: "/hello"), body: nil, baseURL: impostor.url("/"), operationID: "x")
        } throws: { error in
            guard case .trustRejected(let decision)? = error.sessionFailureReason else { return false }
            return decision.pinMismatch != nil
        }
        let once = HTTPBody(AsyncStream { continuation in
            continuation.yield(ArraySlice("once".utf8))
            continuation.finish()
        }, length: .known(4))
        await #expect {
            _ = try await transport.send(
                HTTPRequest(method: .post, scheme: String?.none, authority: String?.none, path: "/redirect?status=307&to=/echo"), body: once, baseURL: server.url("/"), operationID: "x"
            )
        } throws: { error in
            guard case .unreadableUpload(let detail)? = error.sessionFailureReason else { return false }
            return detail.contains("the body stream failed")
        }
        let (_, replayed) = try await transport.send(
            HTTPRequest(method: .post, scheme: String?.none, authority: String?.none, path: "/redirect?status=307&to=/echo"), body: HTTPBody("again"), baseURL: server.url("/"), operationID: "x"
        )
        #expect(try await collect(replayed) == "again")
        await session.shutdown()
        await server.stop()
        await impostor.stop()
    }
}
#endif
