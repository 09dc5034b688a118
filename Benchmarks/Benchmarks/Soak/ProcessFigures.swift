import Foundation

/// What the process holds, read from `/proc/self` (Linux).
enum ProcessFigures {
    /// Resident memory, in MiB (`VmRSS` of `/proc/self/status`).
    static var residentMiB: Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }

    /// Open file descriptors.
    static var fileDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}

/// Latencies, in order of arrival; percentiles read from a sorted copy.
struct Latencies {
    private(set) var values: [Duration] = []

    mutating func add(_ duration: Duration) { values.append(duration) }

    /// The `fraction` percentile (0.5: the median), nearest rank.
    func percentile(_ fraction: Double) -> Duration {
        guard !values.isEmpty else { return .zero }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }
}

extension Duration {
    /// Milliseconds, for the summary.
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}
