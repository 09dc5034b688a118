import Foundation
import Logging
import TransportSecurity

/// The known HSTS hosts of a session (RFC 6797, curl's `--hsts`): a host that said
/// `Strict-Transport-Security` over https is then reached over https only, its `http://` URLs
/// (the caller's, or a redirect's) sent as `https://` before any connection is made, so that
/// nothing goes in the clear for an attacker to take.
///
/// The session notes the field of every response that came over TLS (the certificate trusted),
/// the first field only (§8.1), never for an address (§8.1.1); `max-age=0` forgets the host.
/// Safe to share between sessions and tasks.
public final class HSTSStore: @unchecked Sendable {
    /// The most hosts kept; past it, the entries that expire first make room.
    public static let maximumEntries = 10_000
    /// The longest `max-age` taken, in seconds (about 68 years): longer ones are cut to it, so
    /// that no date overflows.
    public static let longestMaximumAge: Int64 = Int64(Int32.max)

    private let lock = NSLock()
    private var byHost: [String: HSTSEntry] = [:]
    private let logger: Logger

    /// An empty store, or one holding `entries` (from a file, a preload list); what it ignores
    /// is logged to `logger` (debug level), nothing unless it is given.
    public init(_ entries: [HSTSEntry] = [], logger: Logger = Logger(label: "SecureSession.HSTS", factory: SwiftLogNoOpLogHandler.init)) {
        self.logger = logger
        for entry in entries { store(entry) }
    }

    /// Every entry that has not expired at `date`, sorted by host.
    public func entries(at date: Date = Date()) -> [HSTSEntry] {
        lock.withLock { byHost.values.filter { $0.isValid(at: date) } }.sorted { $0.host < $1.host }
    }

    /// Adds `entry`, replacing the host's; an entry whose host is not a well-formed DNS name
    /// (an address, ``HSTSEntry/hasWellFormedHost``) is not kept: it could never be looked up.
    public func store(_ entry: HSTSEntry) {
        guard entry.hasWellFormedHost else { return }
        lock.withLock {
            byHost[entry.host] = entry
            if byHost.count > Self.maximumEntries, let soonest = byHost.values.min(by: Self.expiresEarlier) {
                byHost[soonest.host] = nil
            }
        }
    }

    /// Forgets `host`'s own entry (not those of its superdomains).
    public func remove(host: String) {
        let name = ServerHost(host).name
        _ = lock.withLock { byHost.removeValue(forKey: name) }
    }

    /// Forgets every host.
    public func removeAll() { lock.withLock { byHost.removeAll() } }

    /// Whether `host` is a known HSTS host at `date` (RFC 6797 §8.2): its own entry, or one of a
    /// superdomain that includes subdomains. An address never is.
    public func isKnownHost(_ host: String, at date: Date = Date()) -> Bool {
        let target = ServerHost(host)
        guard !target.isIPAddress else { return false }
        let name = target.name
        return lock.withLock {
            var candidate = Substring(name)
            while true {
                if let entry = byHost[String(candidate)], entry.isValid(at: date), entry.covers(name) { return true }
                guard let dot = candidate.firstIndex(of: ".") else { return false }
                candidate = candidate[candidate.index(after: dot)...]
            }
        }
    }

    /// `url` as it must be requested: an `http://` URL of a known HSTS host as `https://`, its
    /// explicit port 80 as 443 and any other port kept (RFC 6797 §8.3); `nil` when it stays as it
    /// is.
    public func upgraded(_ url: URL, at date: Date = Date()) -> URL? {
        guard url.scheme?.lowercased() == "http", let host = url.host, isKnownHost(host, at: date),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return nil }
        components.scheme = "https"
        if components.port == 80 { components.port = nil }
        return components.url
    }

    /// Notes the `Strict-Transport-Security` fields of a response from `host` that came over
    /// TLS: the first field, when it follows the grammar (§8.1).
    func note(fields: [String], from host: String, at date: Date = Date()) {
        guard let field = fields.first else { return }
        let target = ServerHost(host)
        guard !target.isIPAddress else { return }
        guard let policy = StrictTransportSecurity(fieldValue: field) else {
            logger.debug("ignored a malformed Strict-Transport-Security field", metadata: ["host": "\(target.name)", "field": "\(field)"])
            return
        }
        guard policy.maximumAge > 0 else {
            remove(host: target.name)
            logger.debug("HSTS host forgotten (max-age=0)", metadata: ["host": "\(target.name)"])
            return
        }
        let age = min(policy.maximumAge, Self.longestMaximumAge)
        store(HSTSEntry(host: target.name, includesSubdomains: policy.includesSubdomains, expires: date.addingTimeInterval(TimeInterval(age))))
        logger.debug("HSTS host noted", metadata: ["host": "\(target.name)", "max-age": "\(age)", "includeSubDomains": "\(policy.includesSubdomains)"])
    }

    private static func expiresEarlier(_ lhs: HSTSEntry, _ rhs: HSTSEntry) -> Bool {
        switch (lhs.expires, rhs.expires) {
        case (let left?, let right?): return left < right
        case (.some, nil): return true
        default: return false
        }
    }
}
