/// A host pattern of a ``ServerTrustManager``: `api.example.com` (that host), `*.example.com`
/// (exactly one label before `example.com`) or `**.example.com` (one or more labels before it).
///
/// Hosts and patterns compare case-insensitively, with a trailing dot ignored.
public struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// How much of a host the pattern covers.
    public enum Kind: Int, Sendable, Hashable, Comparable {
        /// `**.suffix`: any depth below the suffix.
        case anyDepth = 0
        /// `*.suffix`: one label below the suffix.
        case oneLabel = 1
        /// The host itself.
        case exact = 2

        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The kind of pattern.
    public let kind: Kind
    /// The host, or the suffix after `*.` / `**.`, lowercased.
    public let suffix: String

    /// Parses a pattern.
    /// - Throws: ``HostPatternError`` for an empty pattern, a wildcard that is not a whole
    ///   left-most label, or a wildcard with nothing after it.
    public init(_ text: String) throws {
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        let kind: Kind
        if name.hasPrefix("**.") {
            kind = .anyDepth
            name.removeFirst(3)
        } else if name.hasPrefix("*.") {
            kind = .oneLabel
            name.removeFirst(2)
        } else {
            kind = .exact
        }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !name.isEmpty, labels.allSatisfy({ !$0.isEmpty && !$0.contains("*") }) else {
            throw HostPatternError(pattern: text)
        }
        self.kind = kind
        self.suffix = name
    }

    /// Whether `host` matches.
    public func matches(_ host: String) -> Bool {
        let name = ServerHost(host).name
        switch kind {
        case .exact:
            return name == suffix
        case .oneLabel, .anyDepth:
            guard name.hasSuffix("." + suffix) else { return false }
            let prefix = name.dropLast(suffix.count + 1)
            return !prefix.isEmpty && (kind == .anyDepth || !prefix.contains("."))
        }
    }

    /// Orders matching patterns: exact beats `*.`, which beats `**.`; then the longer suffix wins.
    var specificity: (Int, Int) { (kind.rawValue, suffix.count) }

    /// The pattern as written, normalized.
    public var description: String {
        switch kind {
        case .exact: return suffix
        case .oneLabel: return "*." + suffix
        case .anyDepth: return "**." + suffix
        }
    }
}

/// A host pattern that cannot be used.
public struct HostPatternError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The pattern as given.
    public let pattern: String

    /// Creates the error.
    public init(pattern: String) { self.pattern = pattern }

    /// Names the pattern and the accepted forms.
    public var description: String {
        "'\(pattern)' is not a host pattern: use host, *.domain (one label) or **.domain (any depth)"
    }
}
