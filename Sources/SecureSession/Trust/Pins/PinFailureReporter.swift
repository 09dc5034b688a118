import Foundation
import Logging
import TransportSecurity

/// Sends pin-failure reports (TrustKit's format) to a pin set's report URLs in the background, never
/// delaying or failing the request that failed: at most once per (host, port, chain, pins,
/// result) per day, a bounded queue (reports beyond it are dropped and counted), and a bounded
/// number of attempts per URL.
public final class PinFailureReporter: @unchecked Sendable {
    /// What the reporter did, for monitoring and tests.
    public struct Statistics: Sendable, Equatable {
        /// Reports delivered (a 2xx answer from a report URL).
        public var delivered = 0
        /// Reports not sent again because an identical one was sent within the window.
        public var suppressed = 0
        /// Reports dropped because the queue was full.
        public var dropped = 0
        /// Deliveries given up after the last attempt.
        public var failed = 0
        /// Distinct reports remembered for the once-per-window rule (at most
        /// ``PinFailureReporter/rememberedReports``).
        public var remembered = 0
    }

    private let session: SecureSession
    private let maximumQueue: Int
    private let attempts: Int
    private let window: TimeInterval
    private let logger: Logger
    private let lock = NSLock()
    private var queue: [(report: PinFailureReport, url: URL)] = []
    private var lastSent: [[String]: Date] = [:]
    private var isDraining = false
    private var statistics = Statistics()

    /// Creates a reporter.
    /// - Parameters:
    ///   - session: The session reports travel through (its own, with the default policy,
    ///     unless given).
    ///   - maximumQueue: Reports waiting at most; more are dropped.
    ///   - attempts: Tries per report URL before giving up.
    ///   - window: How long an identical report is not sent again (24 hours).
    ///   - logger: Where deliveries and failures are logged (debug level); nothing is logged
    ///     unless given.
    public init(
        session: SecureSession? = nil,
        maximumQueue: Int = 64,
        attempts: Int = 3,
        window: TimeInterval = 86_400,
        logger: Logger = Logger(label: "PinFailureReporter", factory: SwiftLogNoOpLogHandler.init)
    ) {
        self.session = session ?? SecureSession(configuration: SecureSessionConfiguration(timeouts: .init(request: .seconds(10))))
        self.maximumQueue = max(1, maximumQueue)
        self.attempts = max(1, attempts)
        self.window = window
        self.logger = logger
    }

    /// What was done so far.
    public var currentStatistics: Statistics {
        lock.withLock {
            var current = statistics
            current.remembered = lastSent.count
            return current
        }
    }

    /// Queues `report` for each of `urls`; returns at once.
    public func submit(_ report: PinFailureReport, to urls: [URL]) {
        guard !urls.isEmpty else { return }
        let startDrain: Bool = lock.withLock {
            if let last = lastSent[report.identity], report.date.timeIntervalSince(last) < window {
                statistics.suppressed += 1
                return false
            }
            forgetReports(before: report.date.addingTimeInterval(-window))
            lastSent[report.identity] = report.date
            for url in urls {
                if queue.count >= maximumQueue {
                    statistics.dropped += 1
                } else {
                    queue.append((report, url))
                }
            }
            guard !isDraining, !queue.isEmpty else { return false }
            isDraining = true
            return true
        }
        if startDrain { Task.detached { await self.drain() } }
    }

    /// Reports `decision` if it records a failure of `rule`'s pin set (enforced or report-only)
    /// and the set names report URLs, as TrustKit does: a trusted path without a pinned key
    /// (validation result 1, with the validated path), or a chain that did not validate, so that
    /// no pin could be matched (result 2, with the chain as the server presented it: a man in
    /// the middle whose root is not trusted). A set past its expiration date reports nothing;
    /// neither do the rule's other refusals (key sizes, certificate transparency,
    /// `NSPinnedDomains`), which are not the pin set's.
    func submitFailure(of decision: TrustDecision, under rule: TransportRule?, host: String, port: Int) {
        guard let set = rule?.pinSet, !set.reportURLs.isEmpty else { return }
        if let mismatch = decision.pinMismatch {
            guard mismatch.expectedPins == set.pins else { return }
            // The validated path; when the server was let through without one (a policy that
            // allows invalid certificates), the chain as presented rather than none.
            let evaluation = decision.lastEvaluation
            let chain = (evaluation?.isTrusted == true ? evaluation?.path : evaluation?.presentedChain) ?? []
            submit(PinFailureReport(set: set, hostname: host, port: port, chain: chain, date: Date()), to: set.reportURLs)
        } else if !decision.isTrusted, decision.decider != .transportRules,
            let evaluation = decision.lastEvaluation, !evaluation.isTrusted, set.isActive(at: evaluation.evaluationTime)
        {
            let report = PinFailureReport(set: set, hostname: host, port: port, chain: evaluation.presentedChain, date: Date(), result: .chainNotTrusted)
            submit(report, to: set.reportURLs)
        }
    }

    /// Keeps the record of reports sent bounded (a server presenting a new chain on every
    /// connection would grow it without end): past ``rememberedReports`` entries, those older
    /// than the window go, then, if it is still full, the oldest. Called with the lock held.
    private func forgetReports(before cutoff: Date) {
        guard lastSent.count >= Self.rememberedReports else { return }
        lastSent = lastSent.filter { $0.value >= cutoff }
        if lastSent.count >= Self.rememberedReports {
            let oldest = lastSent.sorted { $0.value < $1.value }.prefix(lastSent.count - Self.rememberedReports / 2)
            for (identity, _) in oldest { lastSent[identity] = nil }
        }
    }

    /// The most distinct reports remembered for the once-per-window rule.
    public static let rememberedReports = 1_024

    private func drain() async {
        while let next = lock.withLock({ () -> (report: PinFailureReport, url: URL)? in
            guard !queue.isEmpty else {
                isDraining = false
                return nil
            }
            return queue.removeFirst()
        }) {
            await deliver(next.report, to: next.url)
        }
    }

    private func deliver(_ report: PinFailureReport, to url: URL) async {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let body = try? encoder.encode(report) else { return }
        for attempt in 1...attempts {
            var request = SecureRequest(.post, url: url, headers: [("Content-Type", "application/json")], body: body)
            request.validation = .successfulStatus
            do {
                _ = try await session.send(request)
                lock.withLock { statistics.delivered += 1 }
                logger.debug("pin failure reported", metadata: ["host": "\(report.hostname)", "to": "\(url.redacted)"])
                return
            } catch {
                logger.debug("pin failure report not delivered", metadata: ["to": "\(url.redacted)", "attempt": "\(attempt)", "error": "\(error)"])
                if attempt < attempts { try? await Task.sleep(for: .milliseconds(200 * (1 << attempt))) }
            }
        }
        lock.withLock { statistics.failed += 1 }
    }
}
