import AsyncHTTPClient
import Foundation
import MetricsTestKit
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PKIBuilder
import SecureSession
import TransportSecurity

// The soak: REQUESTS (10,000) HTTPS requests at CONCURRENCY (64) through one SecureSession with
// a pinned policy (the leaf key and its backup), against local servers of every kind: genuine
// ones over HTTP/1.1 and HTTP/2, two that move to the backup key half-way through, and five
// impostors. Then the genuine servers alone, SecureSession and AsyncHTTPClient in turn.
//
//     swift run -c release Soak [REQUESTS] [CONCURRENCY]

let arguments = Array(CommandLine.arguments.dropFirst())
let total = arguments.first.flatMap { Int($0) } ?? 10_000
let concurrency = arguments.dropFirst().first.flatMap { Int($0) } ?? 64
let showsProgress = isatty(2) == 1

/// A line on standard output, written at once (the summary is read as it comes).
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func progress(_ text: String) {
    FileHandle.standardError.write(Data((showsProgress ? "\r\(text)" : "\(text)\n").utf8))
}

/// What a server is, and so what a right decision about it is.
enum Kind: String, CaseIterable {
    case genuine, rotating, impostor
}

struct Target: Sendable {
    let server: SoakServer
    let kind: Kind
    var url: URL { URL(string: "https://\(lab.host):\(server.port)/")! }
}

// Certificates valid today: AsyncHTTPClient, the peer, validates at the time of the run.
let lab = try TrustLab(pki: PKI(now: Date()))
let backup = lab.chain(.reissuedNewKey)
let pins = [lab.leaf.der.spkiPin, backup[0].der.spkiPin]

var started: [Target] = [
    Target(server: try await SoakServer(name: "genuine h1", chain: lab.chain(.legitimate)), kind: .genuine),
    Target(server: try await SoakServer(name: "genuine h2", chain: lab.chain(.legitimate), http2: true), kind: .genuine),
    Target(server: try await SoakServer(name: "rotating a", chain: lab.chain(.legitimate), recycleAfter: 10), kind: .rotating),
    Target(server: try await SoakServer(name: "rotating b", chain: lab.chain(.legitimate), recycleAfter: 10), kind: .rotating),
]
for attacker in [TrustLab.Server.untrustedRoot, .interceptingProxy, .wrongHost, .expired, .appendedGenuineChain] {
    started.append(Target(server: try await SoakServer(name: attacker.rawValue, chain: lab.chain(attacker)), kind: .impostor))
}
let targets = started

/// Request `index`'s server: of every 20, 7 to the genuine HTTP/1.1 server, 6 to the HTTP/2 one,
/// 3 to the rotating ones, 4 to the impostors in turn (65 %, 15 %, 20 %).
func target(of index: Int) -> Target {
    switch index % 20 {
    case 0..<7: return targets[0]
    case 7..<13: return targets[1]
    case 13, 15: return targets[2]
    case 14: return targets[3]
    default: return targets[4 + (index / 20 * 4 + index % 20 - 16) % 5]
    }
}

/// A failure, as the summary needs it: its code and its words (the error itself is not kept:
/// a rejection carries its whole decision, certificates included, and thousands kept would
/// show as the soak's own memory growth).
struct Failure: Sendable, CustomStringConvertible {
    let code: SecureSessionError.Code
    let description: String
}

/// One request's outcome.
struct Outcome: Sendable {
    let target: Target
    let latency: Duration
    /// `nil`: a response came.
    let error: Failure?
}

/// Runs `count` requests, `concurrency` at a time, each made by `request(index)`; `onEach` sees
/// the number done so far.
func run(
    _ count: Int,
    request: @escaping @Sendable (Int) async -> Outcome,
    onEach: @escaping @Sendable (Int) -> Void = { _ in }
) async -> [Outcome] {
    let next = NIOLockedValueBox(0)
    let done = NIOLockedValueBox(0)
    return await withTaskGroup(of: [Outcome].self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var outcomes: [Outcome] = []
                while true {
                    let index = next.withLockedValue { value -> Int in
                        defer { value += 1 }
                        return value
                    }
                    guard index < count else { return outcomes }
                    outcomes.append(await request(index))
                    onEach(done.withLockedValue { $0 += 1; return $0 })
                }
            }
        }
        return await group.reduce(into: []) { $0 += $1 }
    }
}

func timed(_ target: Target, _ body: () async throws -> Void) async -> Outcome {
    let start = ContinuousClock.now
    do {
        try await body()
        return Outcome(target: target, latency: ContinuousClock.now - start, error: nil)
    } catch {
        let failure = error as? SecureSessionError ?? SecureSessionError.invalidRequest("\(error)")
        return Outcome(target: target, latency: ContinuousClock.now - start, error: Failure(code: failure.code, description: "\(failure)"))
    }
}

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

// MARK: The mixed soak

let metrics = TestMetrics()
let session = SecureSession(configuration: SecureSessionConfiguration(
    tls: .init(
        trustEvaluator: PublicKeysTrustEvaluator(pins: pins),
        systemStore: TrustStore(lab.systemRoots.map(\.der), origin: "lab system store"),
        evaluationTime: lab.pki.now,
        decisionCache: DecisionCache()
    ),
    connections: .init(
        maximumPerHost: 16,
        idleTimeout: .seconds(2),
        addressOverrides: targets.map { AddressOverride(host: lab.host, port: $0.server.port, address: "127.0.0.1") }
    ),
    timeouts: .init(connect: .seconds(10), request: .seconds(30)),
    metricsFactory: metrics
))

// What the process makes once (event loops, the deadline sweeper) is made before counting.
let warmUp = SecureSession(configuration: SecureSessionConfiguration(
    tls: .init(trustEvaluator: PublicKeysTrustEvaluator(pins: pins), systemStore: TrustStore(lab.systemRoots.map(\.der), origin: "lab system store")),
    connections: .init(addressOverrides: [AddressOverride(host: lab.host, port: targets[0].server.port, address: "127.0.0.1")])
))
_ = try await warmUp.get(targets[0].url)
await warmUp.shutdown()
try await Task.sleep(for: .milliseconds(200))
let descriptorsAtStart = ProcessFigures.fileDescriptors
let memory = NIOLockedValueBox<[(requests: Int, mebibytes: Double)]>([])
let rotatedAt = total / 2
say("Soak: \(total) requests at concurrency \(concurrency), \(targets.count) servers (\(targets.map(\.server.name).joined(separator: ", ")))")
let soakStart = ContinuousClock.now
let outcomes = await run(total) { index in
    if index == rotatedAt {
        for target in targets where target.kind == .rotating { try? target.server.rotate(to: backup) }
    }
    let target = target(of: index)
    return await timed(target) { _ = try await session.get(target.url) }
} onEach: { done in
    if [1_000, total / 2, total].contains(done) { memory.withLockedValue { $0.append((done, ProcessFigures.residentMiB)) } }
    if done % 250 == 0 || done == total { progress("  \(done)/\(total) requests") }
}
let soakTime = ContinuousClock.now - soakStart
if showsProgress { progress(String(repeating: " ", count: 40) + "\r") }
let descriptorsPooled = ProcessFigures.fileDescriptors
try await Task.sleep(for: .seconds(3))  // past the pool's idle timeout
let descriptorsIdle = ProcessFigures.fileDescriptors
await session.shutdown()

// Every decision, by kind of server.
var wrong: [String] = []
say("\nOutcomes by server (response / refused as untrusted / other failure):")
for target in targets {
    let mine = outcomes.filter { $0.target.server === target.server }
    let answered = mine.filter { $0.error == nil }.count
    let refused = mine.filter { $0.error?.code == .trustRejected }.count
    let failed = mine.count - answered - refused
    say("  \(target.server.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(target.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)) \(answered) / \(refused) / \(failed); requests the server read: \(target.server.requestCount)")
    switch target.kind {
    case .genuine, .rotating:
        if refused + failed > 0 { wrong.append("\(target.server.name): \(refused) refused, \(failed) failed: \(mine.compactMap(\.error).prefix(2))") }
    case .impostor:
        if answered > 0 || target.server.requestCount > 0 { wrong.append("\(target.server.name): \(answered) answered, \(target.server.requestCount) requests read") }
        if failed > 0 { wrong.append("\(target.server.name): \(failed) failed otherwise than refused: \(mine.compactMap(\.error).filter { $0.code != .trustRejected }.prefix(2))") }
    }
}
let legitimate = outcomes.filter { $0.target.kind != .impostor }
var latencies = Latencies()
for outcome in legitimate { latencies.add(outcome.latency) }
say("\nRequests done: \(outcomes.count) in \(format(soakTime.milliseconds / 1000, 2)) s (\(format(Double(outcomes.count) / (soakTime.milliseconds / 1000), 0)) per second)")
say("Wrong decisions: \(wrong.count)\(wrong.isEmpty ? "" : "\n  " + wrong.joined(separator: "\n  "))")
say("Latency of the genuine and rotating servers' requests: p50 \(format(latencies.percentile(0.5).milliseconds, 2)) ms, p99 \(format(latencies.percentile(0.99).milliseconds, 2)) ms")
let figures = memory.withLockedValue { $0 }.sorted { $0.requests < $1.requests }
say("Resident memory: " + figures.map { "\($0.requests) requests \(format($0.mebibytes)) MiB" }.joined(separator: ", ")
    + (figures.count == 3 ? " (last/first \(format(figures[2].mebibytes / figures[0].mebibytes, 3)))" : ""))
say("File descriptors: \(descriptorsAtStart) before the session, \(descriptorsPooled) with the pool just used, \(descriptorsIdle) once it is idle")
let decisions = metrics.counters.filter { $0.label == "secure_session_trust_decisions_total" }
say("Trust decisions (connections judged): " + decisions.map { counter in
    "\(counter.dimensions.map { "\($0.0)=\($0.1)" }.joined(separator: " ")): \(counter.totalValue)"
}.sorted().joined(separator: "; "))
say("Keys the rotating servers proved (secure_session_server_keys_total):")
for target in targets where target.kind == .rotating {
    let origin = "https://\(lab.host):\(target.server.port)"
    for (name, pin) in [("leaf key", pins[0]), ("backup key", pins[1])] {
        let count = metrics.counters.filter { $0.label == "secure_session_server_keys_total" && $0.dimensions.contains { $0 == ("server", origin) } && $0.dimensions.contains { $0 == ("spki", pin.description) } }
            .map(\.totalValue).reduce(0, +)
        say("  \(target.server.name): \(name) \(count)")
    }
}

// MARK: The genuine servers alone: SecureSession, then AsyncHTTPClient

let peerCount = total / 2
let genuine = targets.filter { $0.kind == .genuine }
let peerSession = SecureSession(configuration: SecureSessionConfiguration(
    tls: .init(
        trustEvaluator: PublicKeysTrustEvaluator(pins: pins),
        systemStore: TrustStore(lab.systemRoots.map(\.der), origin: "lab system store"),
        evaluationTime: lab.pki.now,
        decisionCache: DecisionCache()
    ),
    connections: .init(maximumPerHost: 16, addressOverrides: genuine.map { AddressOverride(host: lab.host, port: $0.server.port, address: "127.0.0.1") })
))
var tls = TLSConfiguration.makeClientConfiguration()
tls.trustRoots = .certificates(try lab.systemRoots.map { try NIOSSLCertificate(bytes: $0.derBytes, format: .der) })
// AsyncHTTPClient connects to the URL's host: 127.0.0.1, which the lab's certificate does not name.
tls.certificateVerification = .noHostnameVerification
var peerConfiguration = HTTPClient.Configuration(tlsConfiguration: tls)
peerConfiguration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: peerConfiguration)
say("\nThe genuine servers alone, \(peerCount) requests each way at concurrency \(concurrency):")
for (name, request) in [
    ("SecureSession", { @Sendable (target: Target) async throws in _ = try await peerSession.get(target.url) }),
    ("AsyncHTTPClient", { @Sendable (target: Target) async throws in
        let response = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(target.server.port)/"), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
    }),
] as [(String, @Sendable (Target) async throws -> Void)] {
    _ = await run(200) { index in await timed(genuine[index % 2]) { try await request(genuine[index % 2]) } }  // warm-up
    let start = ContinuousClock.now
    let peerOutcomes = await run(peerCount) { index in await timed(genuine[index % 2]) { try await request(genuine[index % 2]) } }
    let elapsed = ContinuousClock.now - start
    var peerLatencies = Latencies()
    for outcome in peerOutcomes { peerLatencies.add(outcome.latency) }
    let failures = peerOutcomes.filter { $0.error != nil }.count
    say("  \(name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(format(Double(peerCount) / (elapsed.milliseconds / 1000), 0)) per second, p50 \(format(peerLatencies.percentile(0.5).milliseconds, 2)) ms, p99 \(format(peerLatencies.percentile(0.99).milliseconds, 2)) ms, \(failures) failed")
}
await peerSession.shutdown()
try await client.shutdown()
for target in targets { await target.server.stop() }
exit(wrong.isEmpty ? 0 : 1)
