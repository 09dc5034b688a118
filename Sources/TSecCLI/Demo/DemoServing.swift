import Foundation
import LabServers
import PKIBuilder
import TransportSecurity

/// `tsec demo --serve`: keeps the lab running for a person to try by hand, with the files and
/// pins they need, until Ctrl-C (SIGINT), SIGTERM or cancellation.
struct DemoServing {
    let servers: TrustLabServers

    /// Writes the lab's roots and leaf to a temporary folder, prints how to reach every server,
    /// waits to be interrupted, then removes the folder. The servers are left for the caller to
    /// stop.
    func serveUntilInterrupted(output: CommandOutput) async throws {
        let lab = servers.lab
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("tsec-lab-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func file(_ name: String, _ contents: String) throws -> String {
            let path = (directory as NSString).appendingPathComponent(name)
            try contents.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let systemRoots = try file("system-roots.pem", lab.systemRoots.pemBundle)
        let root = try file("root.pem", lab.root.pemString)
        let leaf = try file("leaf.pem", lab.leaf.pemString)

        let interrupted = Interruption()
        output.line("")
        output.line("Serving the lab until Ctrl-C. Every server claims to be \(lab.host); connect to 127.0.0.1.")
        let width = TrustLab.Server.allCases.map(\.label.count).max() ?? 0
        for server in TrustLab.Server.allCases {
            output.line("  " + server.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + servers.url(server).absoluteString)
        }
        output.line("Files:")
        output.line("  \(systemRoots)  the lab's system store: its root and the intercepting proxy's root")
        output.line("  \(root)  the legitimate root")
        output.line("  \(leaf)  the legitimate leaf")
        output.line("Pins:")
        output.line("  \(lab.leaf.der.spkiPin)  leaf  \(lab.leaf.der.subjectSummary)")
        output.line("  \(lab.intermediate.der.spkiPin)  intermediate  \(lab.intermediate.der.subjectSummary)")
        output.line("  \(lab.root.der.spkiPin)  root  \(lab.root.der.subjectSummary)")
        let legitimate = servers.ports[.legitimate] ?? 0
        let proxy = servers.ports[.interceptingProxy] ?? 0
        output.line("Try:")
        output.line("  tsec get \(servers.url(.legitimate)) --resolve \(lab.host):\(legitimate):127.0.0.1 --system-roots \(systemRoots)")
        output.line("  tsec get \(servers.url(.interceptingProxy)) --resolve \(lab.host):\(proxy):127.0.0.1 --system-roots \(systemRoots) --mode public-key --pin \(root)")
        await interrupted.wait()
        output.line("Stopped.")
    }
}
