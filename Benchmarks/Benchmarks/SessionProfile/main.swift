import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SecureSession
import TransportSecurity

// A plain keep-alive loop against the session benchmarks' server, for `perf record`:
// `SessionProfile secure|ahc [COUNT]` sends COUNT GETs (20,000 unless given) on one warm
// connection, from a task off the main actor (as the benchmark runner does), and prints the mean
// time per request.

/// Runs `count` requests after one that warms the connection; the mean time per request.
func meanTime(of count: Int, _ request: @escaping @Sendable () async throws -> Void) async throws -> Duration {
    try await request()
    let clock = ContinuousClock()
    let start = clock.now
    try await Task.detached {
        for _ in 0..<count { try await request() }
    }.value
    return (clock.now - start) / count
}

func profile(_ client: String, count: Int) async throws {
    let pki = try BenchPKI()
    let server = try await startBenchServer(pki: pki)
    let url = URL(string: "https://127.0.0.1:\(server.port)/")!
    switch client {
    case "secure":
        let session = SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(
                trustEvaluator: SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pki.root.der]),
                systemStore: TrustStore([pki.root.der], origin: "bench root"),
                decisionCache: DecisionCache()
            ),
            connections: .init(maximumPerHost: 1)
        ))
        print("SecureSession", try await meanTime(of: count) { _ = try await session.get(url).body.count })
        await session.shutdown()
    case "ahc":
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([pki.rootForNIO])
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .http1Only
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 1)
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        print("AsyncHTTPClient", try await meanTime(of: count) {
            let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
        })
        try await client.shutdown()
    default:
        print("usage: SessionProfile secure|ahc [COUNT]")
    }
}

try await profile(CommandLine.arguments.dropFirst().first ?? "", count: CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 20_000)
