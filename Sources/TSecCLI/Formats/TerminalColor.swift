import Foundation

/// Whether `tsec` may colour what it writes: only on a terminal, and never when `NO_COLOR` is set
/// to anything but the empty string (no-color.org) or the terminal is `dumb`.
enum TerminalColor {
    /// Whether colour is allowed for output that goes to a terminal or not (`isTerminal`), under
    /// `environment`.
    static func allowed(isTerminal: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// Whether colour is allowed on the file descriptor `descriptor` (1: stdout), under the
    /// process's environment.
    static func allowed(onDescriptor descriptor: Int32) -> Bool {
        allowed(isTerminal: isatty(descriptor) == 1)
    }
}
