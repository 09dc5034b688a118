import Atomics
import Foundation

/// How many SIGINT or SIGTERM signals arrived while an ``Interruption`` listened: incremented by
/// the signal handler, on whichever thread the kernel chose, and read by the task waiting in
/// ``Interruption/wait()`` on another, so an atomic (a plain global was a data race that
/// ThreadSanitizer reported). Never freed: it lives as long as the process. First touched by
/// ``Interruption/init()``, before any handler is installed, so the handler never runs the
/// global's one-time initialization.
private let interruptionsReceived = UnsafeAtomic<Int32>.create(0)

/// Waits for SIGINT or SIGTERM (handled, so the process is not killed) or task cancellation.
///
/// A plain signal handler that counts, polled every 50 ms: libdispatch's signal sources would
/// keep the process from exiting afterwards on Linux (its signal thread parks the exiting main
/// thread). The handler does one lock-free atomic increment and leaves `errno` as it found it,
/// whatever code the signal interrupted.
final class Interruption: Sendable {
    private static let signals = [SIGINT, SIGTERM]
    private let previous: [sighandler_t?]
    private let start: Int32

    /// Starts listening (call before announcing that Ctrl-C stops).
    init() {
        start = interruptionsReceived.load(ordering: .acquiring)
        previous = Self.signals.map { number in
            signal(number) { _ in
                let interrupted = errno
                interruptionsReceived.wrappingIncrement(ordering: .releasing)
                errno = interrupted
            }
        }
    }

    /// Returns at the first signal or when the task is cancelled; the previous handlers are
    /// restored.
    func wait() async {
        while interruptionsReceived.load(ordering: .acquiring) == start, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(50))
        }
        for (number, handler) in zip(Self.signals, previous) { signal(number, handler) }
    }
}
