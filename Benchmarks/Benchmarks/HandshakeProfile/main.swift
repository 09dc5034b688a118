import BenchSupport
import Foundation

// A plain loop of TLS handshakes against the handshake benchmarks' server (all-P-256 chain),
// for `perf record`: `HandshakeProfile default|warm|cold [COUNT] [CONCURRENCY]` makes COUNT
// rounds of CONCURRENCY handshakes (2,000 rounds of 1 unless given) after one that warms the
// client, from a task off the main actor, and prints the mean wall and CPU time per round.

/// The process's user and system CPU time so far.
func cpuTime() -> Duration {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func duration(_ time: timeval) -> Duration { .seconds(time.tv_sec) + .microseconds(time.tv_usec) }
    return duration(usage.ru_utime) + duration(usage.ru_stime)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let kinds = ["default": 0, "warm": 1, "cold": 2]
guard let kind = arguments.first.flatMap({ kinds[$0] }) else {
    print("usage: HandshakeProfile default|warm|cold [COUNT] [CONCURRENCY]")
    exit(2)
}
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 2_000
let concurrency = arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1

let scenario = try HandshakeScenario(shape: .allP256)
let client = scenario.clients[kind]
let port = try await scenario.port()
try await client.handshake(port: port)
let clock = ContinuousClock()
let start = clock.now
let startCPU = cpuTime()
try await Task.detached {
    for _ in 0..<count { try await client.handshakes(port: port, concurrency: concurrency) }
}.value
let wall = (clock.now - start) / count
let cpu = (cpuTime() - startCPU) / count
print("\(client.label), concurrency \(concurrency): \(wall) wall, \(cpu) CPU (client and server) per round")
