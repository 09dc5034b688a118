import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("nginx, an independent HTTP/1.1 and HTTP/2 peer")
struct NginxTests {
    let lab = try! TrustLab()

    @Test(
        "nginx ends each connection after 2 requests (keepalive_requests): 60 requests at once, GETs and POSTs, are each answered and processed exactly once, over HTTP/2 (the streams its GOAWAY left unprocessed go again on new connections, whatever the method) and over HTTP/1.1",
        arguments: [HTTPVersionPolicy.automatic, .http1Only]
    )
    func connectionsEndedAfterSoManyRequests(versions: HTTPVersionPolicy) async throws {
        let server = try NginxServer(chain: lab.loopbackChain(), requestsPerConnection: 2)
        defer { server.stop() }
        let session = lab.session { $0.connections.httpVersions = versions }
        let count = 60
        let answers = await withTaskGroup(of: (Int, Result<SecureResponse, any Error>).self) { group in
            for n in 0..<count {
                group.addTask {
                    let url = server.url("/order?n=\(n)")
                    return (n, await Result { n % 2 == 0 ? try await session.get(url) : try await session.post(url, body: Data("order \(n)".utf8)) })
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        let failures = answers.compactMap { n, answer in (try? answer.get()) == nil ? "\(n): \(answer)" : nil }
        #expect(failures.isEmpty, "\(failures.count) failed, the first: \(failures.prefix(3))")
        for (n, answer) in answers {
            guard let response = try? answer.get() else { continue }
            #expect(response.text == "\(n % 2 == 0 ? "GET" : "POST") n=\(n)")
            #expect(response.httpVersion == (versions == .automatic ? "HTTP/2" : "HTTP/1.1"))
        }
        await session.shutdown()
        // nginx logs a request just after answering it.
        var processed = try server.processed()
        for _ in 0..<100 where processed.count < count {
            try await Task.sleep(for: .milliseconds(20))
            processed = try server.processed()
        }
        #expect(processed.map(\.n).sorted() == (0..<count).map(String.init).sorted(), "each request processed once")
        #expect(processed.allSatisfy { $0.requestOnConnection <= 2 })
        #expect(Set(processed.map(\.connection)).count >= count / 2)
        #expect(Set(processed.map(\.httpProtocol)) == [versions == .automatic ? "HTTP/2.0" : "HTTP/1.1"])
    }
}
