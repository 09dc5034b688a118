import Foundation
import NIOHTTP1
import PKIBuilder
import TestServers
import Testing
import TransportSecurity

@testable import SecureSession

@Suite("A server's Keep-Alive: timeout=N: its idle connections are given up a second before it closes them")
struct KeepAliveHintTests {
    let lab = try! TrustLab()

    private func hint(_ fields: String...) -> KeepAliveHint? {
        KeepAliveHint(HTTPHeaders(fields.map { ("Keep-Alive", $0) }))
    }

    @Test("timeout read as Apache and Node.js write it, quoted, with other parameters, in any case and spacing; the smallest of several")
    func readsTimeout() {
        #expect(hint("timeout=5, max=100")?.serverTimeoutSeconds == 5)
        #expect(hint("max=100,timeout=2")?.serverTimeoutSeconds == 2)
        #expect(hint(#"timeout="3""#)?.serverTimeoutSeconds == 3)
        #expect(hint("TIMEOUT = 4")?.serverTimeoutSeconds == 4)
        #expect(hint("timeout=5", "timeout=3")?.serverTimeoutSeconds == 3)
        #expect(hint("timeout=9, timeout=7")?.serverTimeoutSeconds == 7)
    }

    @Test(
        "no hint: no field, no timeout, or one that is not whole seconds",
        arguments: ["max=100", "timeout=", "timeout=-1", "timeout=+5", "timeout=1.5", "timeout=abc", "timeout=99999999999999999999999", "timeouts=5", #"timeout=""#]
    )
    func noHint(field: String) {
        #expect(hint(field) == nil)
        #expect(KeepAliveHint(HTTPHeaders([("Connection", "keep-alive")])) == nil)
    }

    @Test("the client keeps a connection idle a second less than the server; a server allowing a second or less gets no reuse")
    func clientLimit() {
        #expect(hint("timeout=5")?.clientIdleLimit == .seconds(4))
        #expect(hint("timeout=2")?.clientIdleLimit == .seconds(1))
        #expect(hint("timeout=1")?.clientIdleLimit == .zero)
        #expect(hint("timeout=0")?.clientIdleLimit == .seconds(-1))
    }

    @Test("a request's Connection field naming close, in any case, among other options; not keep-alive, closed or another field")
    func connectionClose() {
        for value in ["close", "Close", " keep-alive, CLOSE ", "upgrade,close", "\tclose\t"] {
            #expect(HTTPHeaders([("Connection", value)]).namesConnectionClose, "\(value)")
        }
        for value in ["keep-alive", "closed", "", ",", "clo se", "keep-alive, upgrade"] {
            #expect(!HTTPHeaders([("Connection", value)]).namesConnectionClose, "\(value)")
        }
        #expect(HTTPHeaders([("Connection", "keep-alive"), ("connection", "close")]).namesConnectionClose)
        #expect(!HTTPHeaders([("Proxy-Connection", "close")]).namesConnectionClose)
    }

    private static func keepAliveURL(_ server: HTTPTestServer, _ value: String) -> URL {
        URL(string: "https://127.0.0.1:\(server.port)/header?name=Keep-Alive&value=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")!
    }

    @Test("timeout=2: the idle connection is closed after a second, well before the session's own limit (60 s); the next request makes a new one")
    func shorterIdleLimit() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session { $0.connections.httpVersions = .http1Only }
        _ = try await session.get(Self.keepAliveURL(server, "timeout=2, max=100"))
        #expect(session.poolStatus().first?.idle == 1, "kept for reuse")
        let again = try await session.get(Self.keepAliveURL(server, "timeout=2, max=99"))
        #expect(again.timing.reusedConnection, "reused within the limit")
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(session.poolStatus().first?.idle ?? 0 == 0, "given up after a second idle")
        let later = try await session.get(Self.keepAliveURL(server, "timeout=2"))
        #expect(!later.timing.reusedConnection)
        await session.shutdown()
        await server.stop()
    }

    @Test("without a hint the session's own limit holds: the connection is still reused after 1.5 s")
    func noHintKeepsSessionLimit() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session { $0.connections.httpVersions = .http1Only }
        _ = try await session.get(server.url("/hello"))
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection)
        await session.shutdown()
        await server.stop()
    }

    @Test("a session limit shorter than the server's hint still holds")
    func sessionLimitShorter() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session {
            $0.connections.httpVersions = .http1Only
            $0.connections.idleTimeout = .milliseconds(200)
        }
        _ = try await session.get(Self.keepAliveURL(server, "timeout=30"))
        try await Task.sleep(for: .milliseconds(600))
        #expect(session.poolStatus().first?.idle ?? 0 == 0)
        await session.shutdown()
        await server.stop()
    }

    @Test("timeout=1 leaves no time to reuse the connection: it is closed after its response")
    func noTimeToReuse() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session { $0.connections.httpVersions = .http1Only }
        let response = try await session.get(Self.keepAliveURL(server, "timeout=1"))
        #expect(response.text == "with a field")
        #expect(session.poolStatus().first?.idle ?? 0 == 0)
        #expect(try await session.get(server.url("/hello")).timing.reusedConnection == false)
        await session.shutdown()
        await server.stop()
    }

    @Test("a connection kept under a long hint and then told a short one expires by the short one, though its timer was armed for the long one")
    func hintShortenedWhileIdleTimerArmed() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session { $0.connections.httpVersions = .http1Only }
        _ = try await session.get(Self.keepAliveURL(server, "timeout=30"))
        let shortened = try await session.get(Self.keepAliveURL(server, "timeout=2"))
        #expect(shortened.timing.reusedConnection)
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(session.poolStatus().first?.idle ?? 0 == 0)
        await session.shutdown()
        await server.stop()
    }
}
