import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing
import TransportSecurity

@Suite("HAProxy, an independent HTTP/2 implementation answering uploads early")
struct HAProxyTests {
    let lab = try! TrustLab()

    @Test(
        "250 uploads answered before their bodies arrived, each HTTP/2 stream then reset by HAProxy (CANCEL), all succeed: swift-nio-http2 took more than 200 resets in 30 s for Rapid Reset and ended the connection under the 201st",
        arguments: [HTTPVersionPolicy.automatic, .http1Only]
    )
    func earlyAnswersToUploads(versions: HTTPVersionPolicy) async throws {
        let server = try HAProxyServer(chain: lab.loopbackChain())
        defer { server.stop() }
        let session = lab.session { $0.connections.httpVersions = versions }
        // Larger than HAProxy's initial window (64 KiB): it cannot have read the body when it answers.
        let body = Data(repeating: 7, count: 100_000)
        let failures = await withTaskGroup(of: String?.self) { group in
            for n in 0..<250 {
                group.addTask {
                    do {
                        let response = try await session.post(server.url("/orders/\(n)"), body: body)
                        let expected = versions == .automatic ? "HTTP/2" : "HTTP/1.1"
                        return response.text == "POST /orders/\(n)" && response.httpVersion == expected ? nil : "\(n): \(response.httpVersion) \(response.text)"
                    } catch {
                        return "\(n): \(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
        }
        #expect(failures.isEmpty, "\(failures.count) failed, the first: \(failures.prefix(3))")
        await session.shutdown()
    }
}
