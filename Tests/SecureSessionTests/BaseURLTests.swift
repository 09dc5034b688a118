import Foundation
import PKIBuilder
import SecureSession
import Testing
import TestServers
import TransportSecurity

private let hidden = "holds a dot segment hidden by percent-encoding or a backslash (%2e, %2F, %5C), which servers may read as '.' or '..'"

@Suite("A base URL: paths resolve under it, as AFHTTPSessionManager's, and never leave it")
struct BaseURLTests {
    func session(base: String?) -> SecureSession {
        SecureSession(configuration: SecureSessionConfiguration(baseURL: base.flatMap(URL.init(string:))))
    }

    @Test(
        "paths resolve under the base, taken as a folder with or without its final slash; a query is kept",
        arguments: ["https://api.example.com:8443/v1", "https://api.example.com:8443/v1/", "https://api.example.com:8443/v1?token=dropped"]
    )
    func resolution(base: String) throws {
        let session = session(base: base)
        #expect(try session.url(for: "users/1").absoluteString == "https://api.example.com:8443/v1/users/1")
        #expect(try session.url(for: "users?active=1&sort=name").absoluteString == "https://api.example.com:8443/v1/users?active=1&sort=name")
        #expect(try session.url(for: "a/../b").absoluteString == "https://api.example.com:8443/v1/b")
        #expect(try session.url(for: "./users:1").absoluteString == "https://api.example.com:8443/v1/users:1")
        #expect(try session.url(for: "").absoluteString == "https://api.example.com:8443/v1/")
        #expect(try session.url(for: "a b/ü").absoluteString == "https://api.example.com:8443/v1/a%20b/%C3%BC")
        // An encoded slash inside a name (a project path, say) and names with dots stay allowed.
        #expect(try session.url(for: "projects/group%2Fapp/v1.2/..hidden").absoluteString == "https://api.example.com:8443/v1/projects/group%2Fapp/v1.2/..hidden")
    }

    @Test(
        "a path that would reach another host, another folder or, through an encoded dot segment, the folder above is refused, saying where it leads",
        arguments: [
            ("https://elsewhere.example/x", "is an absolute URL (a first segment with ':' is written ./NAME:…)"),
            ("users:1", "is an absolute URL (a first segment with ':' is written ./NAME:…)"),
            ("//elsewhere.example/x", "names another host (a network-path reference)"),
            ("/admin", "resolves to https://api.example.com:8443/admin"),
            ("../admin", "resolves to https://api.example.com:8443/admin"),
            ("a/../../v1x", "resolves to https://api.example.com:8443/v1x"),
            ("%2e%2e/admin", hidden),
            ("users/.%2E/%2e/admin", hidden),
            ("..%2Fadmin", hidden),
            ("a%2F..%2F..%2Fadmin", hidden),
            ("..%5Cadmin", hidden),
            ("..\\admin", hidden),
            // A combining mark after the encoded slash, or a prepended mark before it, makes one
            // Character of the slash and the mark: servers split bytes.
            ("..%2F%CC%81x", hidden),
            ("..%5C%CC%81x", hidden),
            ("x%D8%80%2F..%2Fadmin", hidden),
        ]
    )
    func confinement(path: String, reason: String) {
        let error = #expect(throws: SecureSessionError.self) { try session(base: "https://api.example.com:8443/v1/").url(for: path) }
        guard case .invalidURL(let message)? = error?.reason else {
            Issue.record("not invalidURL: \(String(describing: error))")
            return
        }
        #expect(message == "'\(path)' \(reason), outside the base URL https://api.example.com:8443/v1/")
    }

    @Test("without a base URL, a path is refused rather than guessed")
    func noBase() {
        let error = #expect(throws: SecureSessionError.self) { try session(base: nil).url(for: "users") }
        guard case .invalidURL(let message)? = error?.reason else {
            Issue.record("not invalidURL: \(String(describing: error))")
            return
        }
        #expect(message == "'users': the session has no base URL (SecureSessionConfiguration.baseURL) to resolve it against")
    }

    @Test("requests by path reach the server under the base URL: get, head, post, put, patch, delete, json")
    func requests() async throws {
        let lab = try TrustLab()
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session { $0.baseURL = URL(string: "https://127.0.0.1:\(server.port)/target/v1") }
        #expect(try await session.get("users/1", queryItems: [URLQueryItem(name: "expand", value: "orders")]).text == "/target/v1/users/1?expand=orders")
        #expect(try await session.post("orders", body: Data("{}".utf8)).text == "/target/v1/orders")
        #expect(try await session.put("orders/7", body: Data("{}".utf8)).text == "/target/v1/orders/7")
        #expect(try await session.patch("orders/7?fields=state", body: Data("{}".utf8)).text == "/target/v1/orders/7?fields=state")
        #expect(try await session.delete("orders/7").text == "/target/v1/orders/7")
        let head = try await session.head("orders/7")
        #expect(head.statusCode == 200 && head.body.isEmpty && head.header("Content-Length") == "\("/target/v1/orders/7".utf8.count)")
        do {
            _ = try await session.get("/hello")
            Issue.record("a path outside the base was requested")
        } catch let sessionError as SecureSessionError where sessionError.code == .invalidURL {
            if case .invalidURL(let message) = sessionError.reason {
                #expect(message.contains("outside the base URL"))
            }
        }
        let root = lab.session { $0.baseURL = URL(string: "https://127.0.0.1:\(server.port)") }
        struct Counts: Decodable, Equatable { let name: String; let count: Int }
        #expect(try await root.json(.post, "echo", body: ["name": "transport"], as: [String: String].self) == ["name": "transport"])
        #expect(try await root.get("json").decode(Counts.self) == Counts(name: "transport", count: 3))
        await session.shutdown()
        await root.shutdown()
        await server.stop()
    }
}
