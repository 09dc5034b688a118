import Foundation
import NIOConcurrencyHelpers
import TransportSecurity

/// One line of progress on stderr for long work (`tsec limbo`, `tsec ats-diagnose`, `tsec get -o`),
/// rewritten in place as curl's meter and git's counters are: shown only when stderr is a
/// terminal, at most ten times a second, and erased when the work ends, so that what follows
/// starts on a clean line and nothing of it reaches a file or a pipe.
final class ProgressLine: Sendable {
    private let output: CommandOutput
    private let interval: Duration
    /// When the line was last drawn, and how wide it was (to erase it).
    private let state = NIOLockedValueBox<(drawn: ContinuousClock.Instant?, width: Int)>((nil, 0))

    /// A progress line for `output`; nothing is drawn unless its stderr is a terminal.
    init(output: CommandOutput, interval: Duration = .milliseconds(100)) {
        self.output = output
        self.interval = interval
    }

    /// Shows `text` in place of the previous progress, unless the line was drawn less than the
    /// interval ago (`force` draws it anyway: a step worth seeing at once).
    func show(_ text: @autoclosure () -> String, force: Bool = false) {
        guard output.errorIsTerminal else { return }
        let now = ContinuousClock.now
        let drawn: String? = state.withLockedValue { state in
            if !force, let last = state.drawn, now - last < interval { return nil }
            // Control characters from a server (a host name, a file name) are not drawn raw.
            let line = String(text().escapingControlCharacters.prefix(120))
            let padding = String(repeating: " ", count: max(0, state.width - line.count))
            state = (now, line.count)
            return "\r" + line + padding
        }
        if let drawn { output.errorText(drawn) }
    }

    /// Erases the line, if one was drawn.
    func finish() {
        let width = state.withLockedValue { state in
            defer { state = (nil, 0) }
            return state.drawn == nil ? 0 : state.width
        }
        guard width > 0 else { return }
        output.errorText("\r" + String(repeating: " ", count: width) + "\r")
    }
}
