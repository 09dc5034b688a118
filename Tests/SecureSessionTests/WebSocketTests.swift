import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

/// WebSockets through a ``SecureSession``: the opening handshake on the session's verified TLS,
/// messages, pings, fragments, the closing handshake and every way a server can break RFC 6455;
/// against Debian's python3-websockets (`Tests/Fixtures/websocket/server.py`, an independent
/// peer, which checks client certificates at the present time: the lab is issued around it).
@Suite("WebSockets over the session's TLS (python3-websockets as the server)")
struct WebSocketTests {
    let lab = try! TrustLab(pki: PKI(now: Date()))

    /// The fixture server presenting the lab's chain, requiring client certificates from
    /// `clientCA` when given.
    final class Server: Sendable {
        let process: ServerProcess
        let folder: String
        var port: Int { process.port }

        init(_ lab: TrustLab, clientCA: IssuedCertificate? = nil) throws {
            folder = NSTemporaryDirectory() + "tsec-websocket-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let chain = lab.chain(.legitimate)
            try chain.pemBundle.write(toFile: "\(folder)/chain.pem", atomically: true, encoding: .utf8)
            try chain[0].privateKeyPEM.write(toFile: "\(folder)/key.pem", atomically: true, encoding: .utf8)
            var extra: [String] = []
            if let clientCA {
                try clientCA.pemString.write(toFile: "\(folder)/client-ca.pem", atomically: true, encoding: .utf8)
                extra = ["\(folder)/client-ca.pem"]
            }
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/websocket/server.py").path
            let folder = folder
            process = try ServerProcess("/usr/bin/python3") { port in [script, "\(folder)/chain.pem", "\(folder)/key.pem", "\(port)"] + extra }
        }

        func stop() {
            process.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    func session(_ server: Server, _ evaluator: any ServerTrustEvaluating = SecurityPolicy.default, configure: (inout SecureSessionConfiguration) -> Void = { _ in }) -> SecureSession {
        lab.session(evaluator) { configuration in
            configuration.connections.addressOverrides = [AddressOverride(host: lab.host, port: server.port, address: "127.0.0.1")]
            configure(&configuration)
        }
    }

    func url(_ path: String, _ server: Server) -> URL { URL(string: "wss://\(lab.host):\(server.port)\(path)")! }

    /// The last close a client of the server sent it, as `CODE REASON`: asked until it is
    /// `expected` (the server records a close once its connection is over) or two seconds
    /// have passed.
    func lastClose(_ session: SecureSession, _ server: Server, awaiting expected: String) async throws -> String {
        var seen = ""
        for _ in 0..<20 {
            seen = try await session.webSocket(url("/last-close", server)) { socket in
                var messages = socket.messages.makeAsyncIterator()
                guard case .text(let text)? = try await messages.next() else { return "no answer" }
                return text
            }
            if seen == expected { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return seen
    }

    @Test("a pinned wss:// WebSocket echoes text and binary messages; the opening handshake's answer and the trust decision are the socket's")
    func echoOverPinnedTLS() async throws {
        let server = try Server(lab)
        defer { server.stop() }
        let session = session(server, SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.intermediate.der]))
        let (received, socketFacts) = try await session.webSocket(url("/echo", server)) { socket in
            try await socket.send("hello")
            try await socket.send([0, 1, 2, 255])
            var messages = socket.messages.makeAsyncIterator()
            let first = try await messages.next()
            let second = try await messages.next()
            return ([first, second], (socket.response.statusCode, socket.subprotocol, socket.trustDecision?.isTrusted, socket.url.scheme))
        }
        await session.shutdown()
        #expect(received == [.text("hello"), .binary([0, 1, 2, 255])])
        #expect(socketFacts.0 == 101)
        #expect(socketFacts.1 == nil)
        #expect(socketFacts.2 == true)
        #expect(socketFacts.3 == "wss")
    }

    @Test("a server whose key is not pinned is refused before the upgrade, with the pins seen and expected")
    func pinMismatch() async throws {
        let server = try Server(lab)
        defer { server.stop() }
        let session = session(server, SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [lab.selfSigned.der]))
        do {
            _ = try await session.webSocket(url("/echo", server)) { _ in "opened" }
            Issue.record("a WebSocket opened to a server whose key is not pinned")
        } catch let sessionError as SecureSessionError where sessionError.code == .trustRejected {
            if case .trustRejected(let decision) = sessionError.reason {
                #expect(decision.pinMismatch?.expected.map(\.pin) == [lab.selfSigned.der.spkiPin])
            }
        }
        await session.shutdown()
    }

    @Test("a server answering the upgrade otherwise fails it with its status and body")
    func refusedUpgrade() async throws {
        let server = try Server(lab)
        defer { server.stop() }
        let session = session(server)
        do {
            _ = try await session.webSocket(url("/refuse", server)) { _ in "opened" }
            Issue.record("a refused upgrade opened a WebSocket")
        } catch let sessionError as SecureSessionError where sessionError.code == .unacceptableStatus {
            if case .unacceptableStatus(let code, let body) = sessionError.reason {
                #expect(code == 403)
                #expect(String(decoding: body, as: UTF8.self) == "forbidden here\n")
            }
        }
        await session.shutdown()
    }

    @Test("the opening request carries the caller's fields and the jar's cookies; the subprotocol is the server's choice among those offered")
    func openingRequest() async throws {
        let server = try Server(lab)
        defer { server.stop() }
        let jar = CookieJar()
        jar.store(setCookieFields: ["session=abc; Secure"], from: URL(string: "https://\(lab.host)/")!)
        let session = session(server) { $0.features.cookieJar = jar }
        let fields = try await session.webSocket(url("/headers", server), headers: [(name: "Authorization", value: "Bearer t0ken")]) { socket in
            try await socket.messages.first { _ in true }
        }
        let chosen = try await session.webSocket(url("/protocol", server), subprotocols: ["quotes.v2", "quotes.v1"]) { socket in
            (socket.subprotocol, try await socket.messages.first { _ in true })
        }
        await session.shutdown()
        #expect(fields == .text("session=abc|Bearer t0ken"))
        #expect(chosen.0 == "quotes.v1")
        #expect(chosen.1 == .text("chosen:quotes.v1"))
    }

    @Test("the server's pings are answered while messages are read; fragmented messages arrive whole")
    func pingsAndFragments() async throws {
        let server = try Server(lab)
        defer { server.stop() }
        let session = session(server)
        let afterPing = try await session.webSocket(url("/ping", server)) { socket in try await socket.messages.first { _ in true } }
        let fragments = try await session.webSocket(url("/fragments", server)) { socket in
            var messages = socket.messages.makeAsyncIterator()
            return [try await messages.next(), try await messages.next()]
        }
        await session.shutdown()
        #expect(afterPing == .text("pong received"))
        #expect(fragments == [.text("fragmented text"), .binary([1, 2, 3])])
    }

    @Test("closing handshakes: the server's close ends the messages and is answered with its code; the client's close, the end of the block (1000) and a block that throws (1001) reach the server")
    func closingHandshakes() async throws {
        let server = try Server(lab)
        defer { server.stop() }
        let session = session(server)
        let (remaining, closeReceived) = try await session.webSocket(url("/close", server)) { socket in
            var count = 0
            for try await _ in socket.messages { count += 1 }
            return (count, socket.closeReceived)
        }
        #expect(remaining == 0)
        #expect(closeReceived == WebSocketClose(code: 4001, reason: "bye"))
        let closed1 = try await lastClose(session, server, awaiting: "4001 ")
        #expect(closed1 == "4001 ", "the server got its code back")

        let ended = try await session.webSocket(url("/echo", server)) { socket in
            try await socket.close(code: 4000, reason: "done")
            var count = 0
            for try await _ in socket.messages { count += 1 }
            // Nothing may follow a close.
            let refusedSend = await #expect(throws: SecureSessionError.self) { try await socket.send("late") }
            return (count, socket.closeReceived, refusedSend.map { "\($0)" } ?? "")
        }
        #expect(ended.0 == 0)
        #expect(ended.1 == WebSocketClose(code: 4000, reason: "done"), "the server answered with the client's close")
        #expect(ended.2.contains("closing"))
        let closed2 = try await lastClose(session, server, awaiting: "4000 done")
        #expect(closed2 == "4000 done")

        _ = try await session.webSocket(url("/echo", server)) { socket in try await socket.send("and leave") }
        let closed3 = try await lastClose(session, server, awaiting: "1000 ")
        #expect(closed3 == "1000 ")

        struct Leaving: Error {}
        await #expect(throws: Leaving.self) { try await session.webSocket(url("/echo", server)) { _ in throw Leaving() } }
        let closed4 = try await lastClose(session, server, awaiting: "1001 ")
        #expect(closed4 == "1001 ")
        await session.shutdown()
    }

    @Test("cancelling the task that reads the messages fails them with cancelled and closes the WebSocket with 1001")
    func cancellation() async throws {
        let server = try Server(lab)
        defer { server.stop() }
        let session = session(server)
        let opened = AsyncStream.makeStream(of: Void.self)
        let reading = Task {
            try await session.webSocket(url("/echo", server)) { socket in
                opened.continuation.yield()
                for try await _ in socket.messages {}
                return "ended"
            }
        }
        for await _ in opened.stream { break }
        reading.cancel()
        let outcome = await reading.result
        let closed = try await lastClose(session, server, awaiting: "1001 ")
        await session.shutdown()
        guard case .failure(let failure) = outcome, failure.sessionFailureCode == .cancelled else {
            Issue.record("the read ended with \(outcome), not cancelled")
            return
        }
        #expect(closed == "1001 ")
    }

    @Test("a server breaking the protocol fails the messages and is closed with the status that says why: too big (1009), not UTF-8 (1007), masked or a malformed close (1002); a connection ending without a close frame fails (1006)")
    func protocolViolations() async throws {
        let server = try Server(lab)
        defer { server.stop() }
        let session = session(server)
        let fits = try await session.webSocket(url("/big?n=1000", server), maximumMessageSize: 1000) { socket in
            try await socket.messages.first { _ in true }
        }
        #expect(fits == .binary(Array(repeating: UInt8(ascii: "x"), count: 1000)))
        do {
            _ = try await session.webSocket(url("/big?n=1001", server), maximumMessageSize: 1000) { socket in try await socket.messages.first { _ in true } }
            Issue.record("a message over the limit was taken")
        } catch let sessionError as SecureSessionError where sessionError.code == .responseTooLarge {
            if case .responseTooLarge(let limit) = sessionError.reason {
                #expect(limit == 1000)
            }
        }
        let closed5 = try await lastClose(session, server, awaiting: "1009 ")
        #expect(closed5 == "1009 ")

        for (path, words, code) in [("/bad-utf8", "not UTF-8", "1007 "), ("/masked", "masked frame", "1002 "), ("/bad-close", "malformed close frame", "1002 ")] {
            do {
                _ = try await session.webSocket(url(path, server)) { socket in try await socket.messages.first { _ in true } }
                Issue.record("\(path) was taken")
            } catch let sessionError as SecureSessionError where sessionError.code == .invalidResponse {
                if case .invalidResponse(let detail) = sessionError.reason {
                    #expect(detail.contains(words), "\(detail)")
                }
            }
            let closed = try await lastClose(session, server, awaiting: code)
            #expect(closed == code, "\(path)")
        }
        do {
            _ = try await session.webSocket(url("/drop", server)) { socket in try await socket.messages.first { _ in true } }
            Issue.record("a connection that ended without a close frame ended the messages quietly")
        } catch let sessionError as SecureSessionError where sessionError.code == .connectionFailed {
            if case .connectionFailed(let detail) = sessionError.reason {
                #expect(detail.contains("without a WebSocket close frame (1006)"), "\(detail)")
            }
        }
        await session.shutdown()
    }

    @Test("mutual TLS: the session's client identity opens a WebSocket to a server requiring one; without it the server refuses the handshake")
    func clientIdentity() async throws {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("WebSocket Clients"))
        let alice = try lab.pki.issue(.client("alice"), by: clientCA)
        let server = try Server(lab, clientCA: clientCA)
        defer { server.stop() }
        let identity = try ClientIdentity(certificateChainPEM: alice.pemString, privateKeyPEM: alice.privateKeyPEM)
        let withIdentity = session(server) { $0.tls.clientIdentity = identity }
        let name = try await withIdentity.webSocket(url("/whoami", server)) { socket in try await socket.messages.first { _ in true } }
        await withIdentity.shutdown()
        #expect(name == .text("alice"))

        let anonymous = session(server)
        await #expect(throws: SecureSessionError.self) {
            try await anonymous.webSocket(url("/whoami", server)) { socket in try await socket.messages.first { _ in true } }
        }
        await anonymous.shutdown()
    }

    @Test("misuse is refused with its reason: not a ws URL, messages read twice, a close code a client may not send or a reason too long; a 101 without the key's answer, a 401 over ws://")
    func misuse() async throws {
        let session = lab.session()
        do {
            try await session.webSocket(URL(string: "https://example.com/")!) { _ in () }
            Issue.record("an https URL opened a WebSocket")
        } catch let sessionError as SecureSessionError where sessionError.code == .invalidURL {
            if case .invalidURL(let detail) = sessionError.reason {
                #expect(detail == "https://example.com/: a WebSocket URL is ws:// or wss://")
            }
        }
        let scripted = try await ScriptedResponseServer(responses: [
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: d3Jvbmc=\r\n\r\n",
        ])
        do {
            _ = try await session.webSocket(URL(string: "ws://127.0.0.1:\(scripted.channel.localAddress?.port ?? 0)/")!) { _ in () }
            Issue.record("a 101 without the key's answer opened a WebSocket")
        } catch let sessionError as SecureSessionError where sessionError.code == .invalidResponse {
            if case .invalidResponse(let detail) = sessionError.reason {
                #expect(detail.contains("Sec-WebSocket-Accept"), "\(detail)")
            }
        }
        await scripted.stop()
        let refusing = try await ScriptedResponseServer(responses: ["HTTP/1.1 401 Unauthorized\r\nContent-Length: 7\r\n\r\nwho? \r\n"])
        do {
            _ = try await session.webSocket(URL(string: "ws://127.0.0.1:\(refusing.channel.localAddress?.port ?? 0)/")!) { _ in () }
            Issue.record("a 401 opened a WebSocket")
        } catch let sessionError as SecureSessionError where sessionError.code == .unacceptableStatus {
            if case .unacceptableStatus(let code, let body) = sessionError.reason {
                #expect(code == 401)
                #expect(body == Data("who? \r\n".utf8))
            }
        }
        await refusing.stop()

        let server = try Server(lab)
        defer { server.stop() }
        let echo = self.session(server)
        let outcomes = try await echo.webSocket(url("/echo", server)) { socket in
            var first = socket.messages.makeAsyncIterator()
            var second = socket.messages.makeAsyncIterator()
            try await socket.send("one")
            let read = try await first.next()
            let twice = await #expect(throws: SecureSessionError.self) { try await second.next() }
            let reserved = await #expect(throws: SecureSessionError.self) { try await socket.close(code: 1005) }
            let long = await #expect(throws: SecureSessionError.self) { try await socket.close(reason: String(repeating: "é", count: 62)) }
            return (read, "\(twice.map { "\($0)" } ?? "")", "\(reserved.map { "\($0)" } ?? "") \(long.map { "\($0)" } ?? "")")
        }
        await echo.shutdown()
        await session.shutdown()
        #expect(outcomes.0 == .text("one"))
        #expect(outcomes.1.contains("one iterator"))
        #expect(outcomes.2.contains("1005"))
        #expect(outcomes.2.contains("at most 123 bytes of UTF-8, not 124"))
    }
}
