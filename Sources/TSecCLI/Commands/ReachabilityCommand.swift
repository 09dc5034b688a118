import ArgumentParser
import Foundation
import Reachability

/// `tsec reachability [HOST] [--watch] [--json]`: whether the network, or a host, is reachable
/// and through which interface; with `--watch`, every change until interrupted.
public struct ReachabilityCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "reachability",
        abstract: "Print whether the network (or HOST) is reachable, and through which interface.",
        discussion: """
            Without HOST, the system's reachability: is there a route out (IPv4 or IPv6 default \
            route) through an interface that is up. With HOST (a name or an address), the route \
            to that host. --watch then prints one line per change, with a timestamp, until \
            Ctrl-C. --json prints one object per line: {"status":"notReachable"} or \
            {"interface":"eth0","status":"reachable","via":"ethernet"}. Exit status: 0 reachable \
            (or, with --watch, interrupted), 1 not reachable, 2 the routing table cannot be read.
            """
    )

    @Argument(help: "A host name or IP address (default: the network at large).")
    var host: String?

    @Flag(help: "Keep printing each change until interrupted.")
    var watch = false

    @Flag(help: "Print JSON objects, one per line.")
    var json = false

    @Option(help: "Monitor this network namespace (a name from `ip netns`, or a path) instead of the process's own.")
    var netns: String?

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Refuses an empty host.
    public func validate() throws {
        guard let host else { return }
        if host.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("the host is empty (leave it out to watch the network at large)")
        }
        // Arguments no resolver could answer would read as "notReachable": say what is wrong.
        if let url = URL(string: host), url.scheme != nil, let inner = url.host, !inner.isEmpty {
            throw ValidationError("'\(host)' is a URL; give its host: tsec reachability \(inner)")
        }
        let colons = host.filter { $0 == ":" }.count
        if colons == 1, let port = host.split(separator: ":").last, port.allSatisfy(\.isNumber) {
            throw ValidationError("'\(host)' has a port; reachability is about the host: tsec reachability \(host.split(separator: ":")[0])")
        }
        if host.contains(where: { $0.isWhitespace || $0 == "/" }) {
            throw ValidationError("'\(host)' is not a host name or an IP address")
        }
    }

    /// Runs the command.
    public func execute(output: CommandOutput) async -> Int32 {
        var configuration = ReachabilityConfiguration()
        configuration.networkNamespace = netns.map { $0.contains("/") ? $0 : "/run/netns/" + $0 }
        let monitor = ReachabilityMonitor(target: host.map { .host($0) } ?? .system, configuration: configuration)
        let interruption = watch ? Interruption() : nil
        do {
            try monitor.startMonitoring()
        } catch {
            output.error("tsec reachability: \(error)")
            return ExitStatus.usageOrInput
        }
        defer { monitor.stopMonitoring() }
        let updates = monitor.statusUpdates()
        guard let interruption else {
            var first: ReachabilityStatus = .unknown
            for await status in updates {
                first = status
                break
            }
            output.line(Self.line(for: first, json: json, watch: false))
            return first.isReachable ? ExitStatus.success : ExitStatus.rejected
        }
        let json = self.json
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await status in updates { output.line(Self.line(for: status, json: json, watch: true)) }
            }
            group.addTask { await interruption.wait() }
            await group.next()
            group.cancelAll()
        }
        return ExitStatus.success
    }

    /// One status as a line of text or JSON; timestamped (ISO 8601, UTC) in watch mode.
    static func line(for status: ReachabilityStatus, json: Bool, watch: Bool) -> String {
        if json { return StatusJSON(status).encoded }
        let text = status.description
        return watch ? Date().formatted(.iso8601) + "  " + text : text
    }
}

/// `{"status": "notReachable"}` or `{"status": "reachable", "via": "ethernet", "interface": "eth0"}`.
struct StatusJSON: Encodable {
    var status: String
    var via: String?
    var interface: String?

    init(_ status: ReachabilityStatus) {
        switch status {
        case .unknown: self.status = "unknown"
        case .notReachable: self.status = "notReachable"
        case .reachable(let interface):
            self.status = "reachable"
            via = interface.kind.rawValue
            self.interface = interface.name
        }
    }

    /// Compact, key-sorted JSON on one line.
    var encoded: String { JSONOutput.line(self) }
}
