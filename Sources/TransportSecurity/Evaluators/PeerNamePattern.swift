/// A name a peer's certificate must carry to be accepted: the authorization half of mutual TLS
/// on a server, after the client's chain has validated to a client CA (what Envoy's
/// subject-alternative-name matchers and Istio's principals do, and what nginx setups check in
/// `$ssl_client_s_dn`); and, on a client, the identity a server must prove when it is known by a
/// SPIFFE ID rather than the host dialled (``ServerIdentityEvaluator``).
///
/// Written as text with ``init(_:)``:
///
/// | text | matches |
/// | --- | --- |
/// | `spiffe://example.org/ns/payments/sa/api` | that SPIFFE ID |
/// | `spiffe://example.org/ns/payments/*` | any SPIFFE ID below `/ns/payments/`, a whole segment at a time |
/// | `spiffe://example.org` | any workload's SPIFFE ID in the trust domain `example.org` |
/// | `DNS:client.partner.example` | that DNS name (letter case aside) |
/// | `DNS:*.partner.example` | one label below `partner.example` |
/// | `email:ops@partner.example` | that address (the domain's letter case aside) |
/// | `URI:https://partner.example/client` | that URI, exactly |
/// | `IP:10.0.0.5` | that address (any spelling of it) |
/// | `CN=partner-gateway` | a subject common name, exactly (for certificates that carry no other name) |
///
/// SPIFFE patterns match only a certificate's ``PeerIdentity/spiffeID``, so a certificate with
/// two SPIFFE URIs (no valid SVID) matches none of them.
public enum PeerNamePattern: Sendable, Hashable, CustomStringConvertible {
    /// Exactly this SPIFFE ID.
    case spiffeID(SPIFFEID)
    /// Any SPIFFE ID below this one (its path followed by `/` and at least one more segment);
    /// not this ID itself.
    case spiffeIDPrefix(SPIFFEID)
    /// Any workload of this trust domain.
    case spiffeTrustDomain(String)
    /// A DNS name, or `*.` and a parent name for one label below it (letter case aside).
    case dnsName(String)
    /// An email address.
    case email(String)
    /// A URI, byte for byte.
    case uri(String)
    /// An IP address (any spelling `inet_pton` reads).
    case ipAddress(String)
    /// A subject common name, byte for byte.
    case commonName(String)

    /// Reads a pattern written as in the table above.
    /// - Throws: ``PeerNamePatternError`` naming the text and the reason.
    public init(_ text: String) throws(PeerNamePatternError) {
        func fail(_ reason: String) -> PeerNamePatternError { PeerNamePatternError(text: text, reason: reason) }
        if SPIFFEID.isSPIFFEURI(text) {
            let isPrefix = text.hasSuffix("/*")
            let id: SPIFFEID
            do { id = try SPIFFEID(isPrefix ? String(text.dropLast(2)) : text) } catch { throw fail(error.description) }
            if isPrefix {
                self = .spiffeIDPrefix(id)
            } else {
                self = id.isTrustDomainID ? .spiffeTrustDomain(id.trustDomain) : .spiffeID(id)
            }
            return
        }
        guard let split = text.firstIndex(where: { $0 == ":" || $0 == "=" }) else {
            throw fail("write it as spiffe://…, DNS:…, email:…, URI:…, IP:… or CN=…")
        }
        let kind = text[..<split].lowercased() + String(text[split])
        let value = String(text[text.index(after: split)...])
        guard !value.isEmpty else { throw fail("nothing follows \(kind)") }
        guard !value.contains(where: { $0.isWhitespace && $0 != " " }) else { throw fail("the name has a control or line-break character") }
        switch kind {
        case "dns:":
            guard let pattern = Self.dnsPattern(value) else {
                throw fail("not a DNS name or a one-label wildcard (*.example.com) in ASCII")
            }
            self = .dnsName(pattern)
        case "email:":
            guard let at = value.lastIndex(of: "@"), at != value.startIndex, value.index(after: at) != value.endIndex else {
                throw fail("an email address has a local part, '@' and a domain")
            }
            self = .email(value)
        case "uri:":
            guard value.contains(":") else { throw fail("a URI starts with its scheme (https:, spiffe:, urn:)") }
            self = .uri(value)
        case "ip:":
            guard let canonical = ServerHost.canonicalIPAddress(value) else { throw fail("not an IPv4 or IPv6 address") }
            self = .ipAddress(canonical)
        case "cn=":
            self = .commonName(value)
        default:
            throw fail("unknown kind \(kind); write spiffe://…, DNS:…, email:…, URI:…, IP:… or CN=…")
        }
    }

    /// The pattern as ``init(_:)`` reads it.
    public var description: String {
        switch self {
        case .spiffeID(let id): return id.description
        case .spiffeIDPrefix(let id): return "\(id)/*"
        case .spiffeTrustDomain(let domain): return "spiffe://\(domain)"
        case .dnsName(let name): return "DNS:\(name)"
        case .email(let address): return "email:\(address)"
        case .uri(let uri): return "URI:\(uri)"
        case .ipAddress(let address): return "IP:\(address)"
        case .commonName(let name): return "CN=\(name)"
        }
    }

    /// Whether the pattern matches SPIFFE IDs.
    var isSPIFFE: Bool {
        switch self {
        case .spiffeID, .spiffeIDPrefix, .spiffeTrustDomain: return true
        default: return false
        }
    }

    /// The name of `identity` this pattern matches, as ``PeerIdentity/names`` writes it, or `nil`.
    public func match(in identity: PeerIdentity) -> String? {
        switch self {
        case .spiffeID(let id):
            return identity.spiffeID == id ? "URI:\(id)" : nil
        case .spiffeIDPrefix(let id):
            // Below the ID only: `…/ns/payments/*` names the workloads of a namespace, not the
            // namespace's own ID.
            return identity.spiffeID.flatMap { id.contains($0) && $0 != id ? "URI:\($0)" : nil }
        case .spiffeTrustDomain(let domain):
            return identity.spiffeID.flatMap { $0.trustDomain == domain ? "URI:\($0)" : nil }
        case .dnsName(let pattern):
            let pattern = pattern.lowercased()
            return identity.dnsNames.first { Self.dnsName($0, matches: pattern) }.map { "DNS:\($0)" }
        case .email(let address):
            return identity.emailAddresses.first { Self.email($0, equals: address) }.map { "email:\($0)" }
        case .uri(let uri):
            return identity.uris.contains(uri) ? "URI:\(uri)" : nil
        case .ipAddress(let address):
            let address = ServerHost.canonicalIPAddress(address) ?? address
            return identity.ipAddresses.contains(address) ? "IP:\(address)" : nil
        case .commonName(let name):
            return identity.commonNames.contains(name) ? "CN=\(name)" : nil
        }
    }

    /// `value` as a DNS pattern (lower case, no trailing dot), or `nil` when it is none: ASCII
    /// letters, digits, `-` and `_` in non-empty labels, with at most a leading `*.` followed by
    /// two labels or more.
    private static func dnsPattern(_ value: String) -> String? {
        var name = value.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let isWildcard = labels.first == "*"
        let named = isWildcard ? labels.dropFirst() : labels[...]
        guard !named.isEmpty, !isWildcard || named.count >= 2 else { return nil }
        for label in named {
            guard !label.isEmpty, label.utf8.count <= 63,
                label.utf8.allSatisfy({ byte in
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                })
            else { return nil }
        }
        return name
    }

    /// Whether a certificate's DNS name matches a pattern: equal apart from letter case and a
    /// trailing dot, or one label (not itself a wildcard) followed by the pattern's parent.
    private static func dnsName(_ name: String, matches pattern: String) -> Bool {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard pattern.hasPrefix("*.") else { return name == pattern }
        let parent = pattern.dropFirst(1)
        guard name.hasSuffix(parent) else { return false }
        let label = name.dropLast(parent.count)
        return !label.isEmpty && !label.contains(".") && !label.contains("*")
    }

    /// Whether two addresses are the same: the local part byte for byte, the domain apart from
    /// letter case (RFC 5280 §7.5).
    private static func email(_ address: String, equals other: String) -> Bool {
        guard let at = address.lastIndex(of: "@"), let otherAt = other.lastIndex(of: "@") else { return false }
        return address[..<at] == other[..<otherAt] && address[at...].lowercased() == other[otherAt...].lowercased()
    }
}

extension [PeerNamePattern] {
    /// Whether `certificate` carries one of these names (`role`: "client", "server", for the
    /// sentence): the check names the name that matched, or the names seen and the patterns
    /// expected.
    func check(_ certificate: DERCertificate, role: String) -> TrustCheck {
        let checkName = "\(role) name"
        let identity: PeerIdentity
        do {
            identity = try PeerIdentity(certificate: certificate)
        } catch {
            return TrustCheck(name: checkName, passed: false, detail: "the \(role) certificate's names cannot be read: \(error)")
        }
        for pattern in self {
            if let name = pattern.match(in: identity) {
                return TrustCheck(name: checkName, passed: true, detail: "\(identity.subject) carries the allowed name \(name)")
            }
        }
        let seen = identity.names.isEmpty ? "no name" : identity.names.joined(separator: ", ")
        let expected = map(\.description).joined(separator: ", ")
        let svidNote = identity.spiffeID == nil && identity.uris.contains(where: SPIFFEID.isSPIFFEURI)
            && contains(where: \.isSPIFFE)
            ? " (its spiffe: URIs make no valid SPIFFE ID: an X.509 SVID has exactly one, with a workload path)" : ""
        return TrustCheck(
            name: checkName,
            passed: false,
            detail: "the \(role) certificate (\(identity.subject)) carries none of the allowed names: it names \(seen)\(svidNote); allowed: \(expected)"
        )
    }
}

/// Why a text is not a ``PeerNamePattern``.
public struct PeerNamePatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text read.
    public let text: String
    /// What is wrong with it.
    public let reason: String

    /// `"DNS:" is not a peer name pattern: nothing follows dns:`.
    public var description: String { "\"\(text.escapingControlCharacters)\" is not a peer name pattern: \(reason)" }
}
