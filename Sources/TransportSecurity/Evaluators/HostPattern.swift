/// A host pattern of a ``ServerTrustManager``: `api.example.com` (that host), `*.example.com`
/// (exactly one label before `example.com`) or `**.example.com` (one or more labels before it).
///
/// Hosts and patterns compare case-insensitively (in ASCII), with a trailing dot ignored, and
/// otherwise byte for byte: `å` written as U+00E5 and as `a` + U+030A are different hosts, as
/// they are to DNS. An IP address matches only an exact pattern, written in any form of that
/// address (`::1`, `0:0:0:0:0:0:0:1`, `[::1]`): `*.2.3.4` does not cover `1.2.3.4`.
public struct HostPattern: Sendable, Hashable, CustomStringConvertible {
    /// How much of a host the pattern covers.
    public enum Kind: Int, Sendable, Hashable, Comparable {
        /// `**.suffix`: any depth below the suffix.
        case anyDepth = 0
        /// `*.suffix`: one label below the suffix.
        case oneLabel = 1
        /// The host itself.
        case exact = 2

        /// Orders kinds from the least specific (``anyDepth``) to the most (``exact``).
        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The kind of pattern.
    public let kind: Kind
    /// The host, or the suffix after `*.` / `**.`, lowercased.
    public let suffix: String

    /// Parses a pattern.
    /// - Throws: ``HostPatternError`` for an empty pattern, an empty label, white space or a
    ///   control character, a wildcard that is not a whole left-most label, or a wildcard with
    ///   nothing after it.
    public init(_ text: String) throws {
        var name = ServerHost.normalizedDNSName(text)
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
        let dot = UInt8(ascii: ".")
        let bytes = name.utf8
        let hasEmptyLabel = bytes.first == dot || bytes.last == dot || zip(bytes, bytes.dropFirst()).contains { $0 == dot && $1 == dot }
        // ASCII's white space is all at or below 0x20; only other text needs Unicode's tables.
        let isSpaceOrControl = { (value: UInt32) in value <= 0x20 || value == 0x7F }
        let hasSpaceOrControl = name.isASCII
            ? bytes.contains { isSpaceOrControl(UInt32($0)) }
            : name.unicodeScalars.contains { isSpaceOrControl($0.value) || $0.properties.isWhitespace }
        guard !name.isEmpty, !hasEmptyLabel, !hasSpaceOrControl, !bytes.contains(UInt8(ascii: "*")) else {
            throw HostPatternError(pattern: text)
        }
        self.kind = kind
        // An exact address matches the address however it is written (`[::1]`, `127.1`), as
        // hosts are read.
        if kind == .exact, case .ipAddress(let address) = ServerHost(name) {
            self.suffix = address
        } else {
            self.suffix = name
        }
    }

    /// Whether `host` matches.
    public func matches(_ host: String) -> Bool {
        matches(ServerHost(host))
    }

    /// Whether `host` matches; an IP address matches only an exact pattern of the same address.
    public func matches(_ host: ServerHost) -> Bool {
        let name = host.name
        switch kind {
        case .exact:
            return name.utf8.elementsEqual(suffix.utf8)
        case .oneLabel, .anyDepth:
            guard !host.isIPAddress else { return false }
            let prefixLength = name.utf8.count - suffix.utf8.count - 1
            guard prefixLength > 0 else { return false }
            let rest = name.utf8.dropFirst(prefixLength)
            guard rest.first == UInt8(ascii: "."), rest.dropFirst().elementsEqual(suffix.utf8) else { return false }
            return kind == .anyDepth || !name.utf8.prefix(prefixLength).contains(UInt8(ascii: "."))
        }
    }

    /// Orders matching patterns: exact beats `*.`, which beats `**.`; then the longer suffix wins.
    var specificity: (Int, Int) { (kind.rawValue, suffix.utf8.count) }

    /// Whether both are the same kind with the same suffix bytes.
    public static func == (lhs: HostPattern, rhs: HostPattern) -> Bool {
        lhs.kind == rhs.kind && lhs.suffix.utf8.elementsEqual(rhs.suffix.utf8)
    }

    /// Hashes the kind and the suffix's bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(byteString: suffix)
    }

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
