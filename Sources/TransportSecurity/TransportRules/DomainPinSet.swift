import Foundation

/// A TrustKit-style pin set for a domain (`TSKPinnedDomains`): SPKI pins of which some
/// certificate of the validated chain must carry one, with a backup pin required (two pins at
/// least), an expiration date after which it is not enforced, and enforce or report-only.
public struct DomainPinSet: Sendable, Hashable {
    /// The domain.
    public var key: DomainKey
    /// `TSKPublicKeyHashes`: at least two.
    public var pins: [SPKIPin]
    /// `TSKIncludeSubdomains`.
    public var includesSubdomains = false
    /// `TSKEnforcePinning`: `false` reports failures but lets the connection through.
    public var enforces = true
    /// `TSKReportUris`: where failures are reported.
    public var reportURLs: [URL] = []
    /// `TSKExpirationDate`: not enforced after this moment.
    public var expirationDate: Date?
    /// `TSKExcludeSubdomainFromParentPolicy`: this name is left out of its parent's pin set and
    /// not pinned itself.
    public var excludesSubdomainFromParentPolicy = false
    /// Why the set was refused when it was loaded (fewer than two valid pins): a refused set
    /// blocks every host it covers, enforced or not (fail closed).
    public var refusal: String?

    /// The fewest distinct pins a set may hold: the pin in use and a backup pin (a key kept
    /// offline), as TrustKit requires. A set with fewer blocks every host it covers.
    public static let minimumPins = 2

    /// Creates a pin set. One with fewer than ``minimumPins`` distinct pins blocks every host it
    /// covers.
    public init(key: DomainKey, pins: [SPKIPin]) {
        self.key = key
        self.pins = pins
    }

    /// Whether the set is still enforced (or reported) at `time`.
    public func isActive(at time: Date) -> Bool { expirationDate.map { time < $0 } ?? true }
}
