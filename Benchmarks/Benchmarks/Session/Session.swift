import AsyncHTTPClient
import BenchSupport
import Benchmark
import Foundation
import LabServers
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import SecureSession
import TransportSecurity
import TransportSecurityNIO

/// Everything the session benchmarks share: one PKI, one in-process NIO server (the lab's), the clients.
struct SessionScenario: Sendable {
    let pki: BenchPKI
    /// The full policy: chain validation and a pinned root key.
    let policy: SecurityPolicy
    let store: TrustStore

    init() throws {
        pki = try BenchPKI()
        policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [pki.root.der])
        store = TrustStore([pki.root.der], origin: "bench root")
    }

    func url(port: Int, path: String = "/") -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    func session(connections: Int) -> SecureSession {
        SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(trustEvaluator: policy, systemStore: store, decisionCache: DecisionCache()),
            connections: .init(maximumPerHost: connections)
        ))
    }

    func asyncHTTPClient(connections: Int, http2: Bool = false) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([pki.rootForNIO])
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = http2 ? .automatic : .http1Only
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }
}

func get(_ client: HTTPClient, _ url: URL) async throws -> Int {
    let response = try await client.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    guard response.status == .ok else { throw HTTPClientError.invalidURL }
    return body.readableBytes
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 50,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 20_000
    )
    let scenario = try! SessionScenario()
    // The servers (HTTP/1.1 only, and one that also offers HTTP/2) outlive every benchmark of the run.
    let servers = NIOLockedValueBox<[Bool: LabHTTPSServer]>([:])
    @Sendable func port(http2: Bool = false) async throws -> Int {
        if let running = servers.withLockedValue({ $0[http2] }) { return running.port }
        let started = try await startBenchServer(pki: scenario.pki, http2: http2)
        servers.withLockedValue { $0[http2] = started }
        return started.port
    }

    // MARK: keep-alive requests on one warm connection
    //
    // Each client is made once, before the first sample, and its connection warmed by one
    // request; every sample is then 1,000 requests back to back on that connection (the steady
    // state of a keep-alive client: no connection set-up, no previous client shutting down
    // nearby, no idle pause between requests for the runner's own bookkeeping), reported per
    // request.

    func keepAliveConfiguration(setup: @escaping @Sendable () async throws -> Void, teardown: @escaping @Sendable () async throws -> Void)
        -> Benchmark.Configuration
    {
        Benchmark.Configuration(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
            warmupIterations: 2,
            scalingFactor: .kilo,
            maxDuration: .seconds(5),
            maxIterations: 30,
            setup: setup,
            teardown: teardown
        )
    }

    for http2 in [false, true] {
        let over = http2 ? " over HTTP/2" : ""
        let ahc = NIOLockedValueBox<HTTPClient?>(nil)
        let ahcConfiguration = keepAliveConfiguration(
            setup: {
                let client = scenario.asyncHTTPClient(connections: 1, http2: http2)
                _ = try await get(client, scenario.url(port: try await port(http2: http2)))
                ahc.withLockedValue { $0 = client }
            },
            teardown: { try await ahc.withLockedValue { $0 }?.shutdown() }
        )
        Benchmark("keep-alive GET\(over), AsyncHTTPClient 1.37", configuration: ahcConfiguration) { benchmark in
            guard let client = ahc.withLockedValue({ $0 }) else { return }
            let url = scenario.url(port: try await port(http2: http2))
            for _ in benchmark.scaledIterations { blackHole(try await get(client, url)) }
        }

        let secure = NIOLockedValueBox<SecureSession?>(nil)
        let sessionConfiguration = keepAliveConfiguration(
            setup: {
                let session = scenario.session(connections: 1)
                let response = try await session.get(scenario.url(port: try await port(http2: http2)))
                precondition(response.httpVersion == (http2 ? "HTTP/2" : "HTTP/1.1"))
                secure.withLockedValue { $0 = session }
            },
            teardown: { await secure.withLockedValue { $0 }?.shutdown() }
        )
        Benchmark("keep-alive GET\(over), SecureSession", configuration: sessionConfiguration) { benchmark in
            guard let session = secure.withLockedValue({ $0 }) else { return }
            let url = scenario.url(port: try await port(http2: http2))
            for _ in benchmark.scaledIterations { blackHole(try await session.get(url).body.count) }
        }
    }

    // MARK: uploads of a file

    fileUploadBenchmarks(scenario: scenario, port: { try await port() })

    // MARK: TLS handshakes
    //
    // One server per chain shape; every client of a shape connects to the same server. A
    // TransportSecurity client is warmed by one handshake before measuring (its cache then holds
    // the decision; the cold client has no cache and evaluates every handshake).

    for shape in [ChainShape.allP256, .webECDSA] {
        let handshakes = try! HandshakeScenario(shape: shape)
        for concurrency in [1, 4] {
            for client in handshakes.clients {
                Benchmark("TLS handshake x\(concurrency), \(shape.name), \(client.label)") { benchmark in
                    let port = try await handshakes.port()
                    try await client.handshake(port: port)
                    benchmark.startMeasurement()
                    for _ in benchmark.scaledIterations { try await client.handshakes(port: port, concurrency: concurrency) }
                }
            }
        }
    }

    // MARK: memory per idle pooled connection

    let idleConfiguration = Benchmark.Configuration(
        metrics: [.custom("resident bytes per idle connection", polarity: .prefersSmaller, useScalingFactor: false)],
        warmupIterations: 1,
        maxIterations: 5
    )
    let idleCount = 128

    Benchmark("idle pooled connection, AsyncHTTPClient 1.37", configuration: idleConfiguration) { benchmark in
        let python = try PythonTLSServer(pki: scenario.pki)
        defer { python.stop() }
        let client = scenario.asyncHTTPClient(connections: idleCount)
        let bytes = try await bytesPerIdleConnection(
            count: idleCount,
            warmUp: { _ = try await get(client, scenario.url(port: python.port)) },
            slowRequest: { _ = try await get(client, scenario.url(port: python.port, path: "/slow")) }
        )
        benchmark.measurement(.custom("resident bytes per idle connection", polarity: .prefersSmaller, useScalingFactor: false), bytes)
        try await client.shutdown()
    }

    Benchmark("idle pooled connection, SecureSession", configuration: idleConfiguration) { benchmark in
        let python = try PythonTLSServer(pki: scenario.pki)
        defer { python.stop() }
        let session = scenario.session(connections: idleCount)
        let bytes = try await bytesPerIdleConnection(
            count: idleCount,
            warmUp: { _ = try await session.get(scenario.url(port: python.port)) },
            slowRequest: { _ = try await session.get(scenario.url(port: python.port, path: "/slow")) }
        )
        benchmark.measurement(.custom("resident bytes per idle connection", polarity: .prefersSmaller, useScalingFactor: false), bytes)
        await session.shutdown()
    }
}
