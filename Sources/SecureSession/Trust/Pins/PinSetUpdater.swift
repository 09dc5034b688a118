import Foundation
import Logging
import TransportSecurity

/// Fetches signed pin-update documents through a ``SecureSession`` (itself pinned) and offers
/// them to a `PinSetRegistry`: once at start, then periodically, with jitter, and with
/// exponential backoff after failures. A failed fetch or a refused document leaves the sets in
/// force as they were.
///
/// ```swift
/// let registry = PinSetRegistry(publicKey: try PinUpdatePublicKey(pemEncoded: builtInKey),
///                               builtIn: builtInSets, store: PinUpdateStore(path: storePath))
/// _ = try? registry.loadStored()
/// var configuration = SecureSessionConfiguration()
/// configuration.tls.pinSetRegistry = registry
/// let session = SecureSession(configuration: configuration)
/// let updater = PinSetUpdater(registry: registry, session: session,
///                             documentURL: URL(string: "https://pins.example.com/pins.json")!)
/// let task = updater.start()   // cancel the task to stop
/// ```
public final class PinSetUpdater: Sendable {
    /// When to fetch.
    public struct Schedule: Sendable, Hashable {
        /// Between successful fetches.
        public var interval: Duration = .seconds(6 * 3600)
        /// The first wait after a failure; doubled after each further failure.
        public var initialBackoff: Duration = .seconds(60)
        /// The longest wait after failures.
        public var maximumBackoff: Duration = .seconds(6 * 3600)
        /// Each wait is spread by up to this fraction either way (0.1: ±10 %), so that many
        /// clients do not fetch in step.
        public var jitter: Double = 0.1

        /// The defaults: every 6 hours; after failures 1 minute, doubling, at most 6 hours; ±10 %.
        public init() {}

        /// The wait before the next fetch after `failures` consecutive failures (0: the last
        /// fetch succeeded), for a `random` number in -1...1 (whole milliseconds).
        public func delay(afterFailures failures: Int, random: Double) -> Duration {
            let base = failures > 0
                ? ExponentialBackoff(initial: initialBackoff, multiplier: 2, maximum: maximumBackoff).seconds(afterSteps: failures - 1)
                : interval.inMilliseconds / 1_000
            // A jitter or random outside its range (or NaN) must not make the delay negative or
            // unconvertible; the delay stays within what a clock can wait for (292 years).
            let spread = ExponentialBackoff.clamp(random, to: -1...1) * ExponentialBackoff.clamp(jitter, to: 0...1)
            return ExponentialBackoff.duration(seconds: base * (1 + spread), atMost: Self.longestDelaySeconds)
        }

        private static let longestDelaySeconds = Double(Int64.max / 1_000_000) / 1_000
    }

    /// What one fetch did.
    public enum Outcome: Sendable, Hashable {
        /// A newer document was accepted and is in force.
        case accepted(version: Int)
        /// The server offers the version already in force.
        case upToDate(version: Int)
    }

    /// The registry updates go to.
    public let registry: PinSetRegistry
    /// The session that fetches.
    public let session: SecureSession
    /// The document's URL.
    public let documentURL: URL
    /// The signature's URL (the document's with `.sig` appended by default).
    public let signatureURL: URL
    /// When to fetch.
    public let schedule: Schedule
    private let logger: Logger

    /// Creates an updater; nothing is fetched until ``start()`` or ``updateNow()``.
    public init(
        registry: PinSetRegistry,
        session: SecureSession,
        documentURL: URL,
        signatureURL: URL? = nil,
        schedule: Schedule = Schedule(),
        logger: Logger? = nil
    ) {
        self.registry = registry
        self.session = session
        self.documentURL = documentURL
        self.signatureURL = signatureURL ?? URL(string: documentURL.absoluteString + ".sig") ?? documentURL
        self.schedule = schedule
        self.logger = logger ?? session.configuration.logger
    }

    /// The largest pin-update document fetched: 1 MiB.
    public static let maximumDocumentSize = 1 << 20
    /// The largest signature fetched: 16 KiB.
    public static let maximumSignatureSize = 16 << 10

    /// Fetches the document and its signature once and offers them to the registry.
    /// - Throws: ``SecureSessionError`` when a fetch fails (``SecureSessionError/responseTooLarge(limit:)``
    ///   beyond ``maximumDocumentSize`` or ``maximumSignatureSize``), `PinUpdateError` when the document
    ///   is refused (bad signature, older version, expired, malformed); the sets in force are
    ///   then unchanged.
    @discardableResult
    public func updateNow() async throws -> Outcome {
        // A pin-update document is a few kilobytes; the server (or whoever took it over) cannot
        // make the client hold more than these bounds before the signature is even checked.
        var documentRequest = SecureRequest(url: documentURL)
        documentRequest.maximumResponseBodySize = Self.maximumDocumentSize
        var signatureRequest = SecureRequest(url: signatureURL)
        signatureRequest.maximumResponseBodySize = Self.maximumSignatureSize
        let document = try await session.send(documentRequest).body
        let signature = try await session.send(signatureRequest).body
        do {
            let accepted = try registry.offer(document: Array(document), signatureText: String(decoding: signature, as: UTF8.self))
            logger.debug("pin update accepted", metadata: ["version": "\(accepted.version)", "url": "\(documentURL.redacted)"])
            return .accepted(version: accepted.version)
        } catch {
            // The same version again is no news; an older one is a refused rollback.
            if case .notNewer(let offered, let current) = error.reason, offered == current { return .upToDate(version: current) }
            throw error
        }
    }

    /// Starts fetching: now, then on the schedule, until the returned task is cancelled.
    public func start() -> Task<Void, Never> {
        Task { [self] in
            var failures = 0
            while !Task.isCancelled {
                do {
                    try await updateNow()
                    failures = 0
                } catch {
                    // Cancelled (the updater stopped, a service group shut down): no failure.
                    if Task.isCancelled { break }
                    failures += 1
                    logger.warning("pin update failed; keeping the sets in force", metadata: ["error": "\(error)", "failures": "\(failures)"])
                }
                let wait = schedule.delay(afterFailures: failures, random: Double.random(in: -1...1))
                try? await Task.sleep(for: wait)
            }
        }
    }
}
