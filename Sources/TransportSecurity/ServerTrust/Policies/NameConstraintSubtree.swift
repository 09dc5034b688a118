import X509

/// RFC 5280 §4.2.1.10 matching of one name against one name-constraint subtree.
///
/// Names and subtrees of different forms never match each other; a form this library cannot
/// compare (otherName, x400Address, ediPartyName, registeredID) is ``Comparison/unsupported``,
/// which fails closed wherever a name of that form actually appears.
enum NameConstraintSubtree {
    /// The result of comparing a name with a subtree.
    enum Comparison: Equatable {
        /// The name lies inside the subtree.
        case inside
        /// The name lies outside the subtree.
        case outside
        /// The name and the subtree have different forms; the subtree says nothing about the name.
        case differentForm
        /// The name and the subtree share a form this library cannot compare.
        case unsupported
    }

    /// Where `name` lies with respect to `subtree`.
    static func compare(_ name: GeneralName, with subtree: GeneralName) -> Comparison {
        switch (name, subtree) {
        case (.dnsName(let name), .dnsName(let base)):
            return dnsName(name, isWithin: base) ? .inside : .outside
        case (.ipAddress(let address), .ipAddress(let range)):
            guard let inside = ipAddress(Array(address.bytes), isWithin: Array(range.bytes)) else { return .differentForm }
            return inside ? .inside : .outside
        case (.rfc822Name(let mailbox), .rfc822Name(let base)):
            return mailbox.isWithinEmailSubtree(base) ? .inside : .outside
        case (.uniformResourceIdentifier(let uri), .uniformResourceIdentifier(let base)):
            guard let host = Self.host(ofURI: uri) else { return .outside }
            return host.isWithinHostSubtree(base) ? .inside : .outside
        case (.directoryName(let name), .directoryName(let base)):
            guard let inside = name.isWithin(directorySubtree: base) else { return .unsupported }
            return inside ? .inside : .outside
        case (.otherName, .otherName), (.x400Address, .x400Address), (.ediPartyName, .ediPartyName),
            (.registeredID, .registeredID):
            return .unsupported
        default:
            return .differentForm
        }
    }

    /// Whether a constraint is well formed: a DNS subtree is a domain name without a leading
    /// period (RFC 5280 allows that form for URIs and mailboxes only), an IP subtree is an
    /// address and a contiguous mask of the same family.
    static func malformation(of subtree: GeneralName) -> String? {
        switch subtree {
        case .dnsName(let base) where base.hasPrefix("."):
            return "the DNS name constraint \"\(base)\" starts with a period, which RFC 5280 allows only for URIs and mailboxes"
        case .ipAddress(let range):
            let bytes = Array(range.bytes)
            guard bytes.count == 8 || bytes.count == 32 else {
                return "an IP address constraint has \(bytes.count) bytes; an address and a mask take 8 or 32"
            }
            let mask = bytes.suffix(bytes.count / 2)
            let bits: [Bool] = mask.flatMap { byte -> [Bool] in (0..<8).map { byte & (UInt8(0x80) >> $0) != 0 } }
            guard !bits.drop(while: { $0 }).contains(true) else {
                return "the IP address constraint's mask is not contiguous"
            }
            return nil
        default:
            return nil
        }
    }

    /// DNS names compare label by label, case-insensitively: `example.com` holds itself and
    /// every name under it; an empty constraint holds every name.
    static func dnsName(_ name: String, isWithin base: String) -> Bool {
        let base = base.lowercased()
        guard !base.isEmpty else { return true }
        let name = name.lowercased()
        return name == base || name.hasSuffix("." + base)
    }

    /// `nil` when the address and the range are of different families.
    static func ipAddress(_ address: [UInt8], isWithin range: [UInt8]) -> Bool? {
        guard range.count == address.count * 2 else { return nil }
        let network = range.prefix(address.count)
        let mask = range.suffix(address.count)
        return zip(zip(address, network), mask).allSatisfy { pair, mask in pair.0 & mask == pair.1 & mask }
    }

    /// The host of `scheme://[userinfo@]host[:port][/...]`, lowercased; `nil` when there is none.
    static func host(ofURI uri: String) -> String? {
        guard let schemeEnd = uri.range(of: "://") else { return nil }
        var authority = uri[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") { return nil }  // IP literals are not matched by URI constraints
        let host = authority.prefix { $0 != ":" }
        return host.isEmpty ? nil : host.lowercased()
    }
}

extension String {
    /// RFC 5280 host subtrees of URIs and mailboxes: `.example.com` holds the hosts under
    /// `example.com` but not `example.com` itself; `example.com` holds exactly that host.
    fileprivate func isWithinHostSubtree(_ base: String) -> Bool {
        let host = lowercased()
        let base = base.lowercased()
        if base.hasPrefix(".") { return host.hasSuffix(base) }
        return host == base
    }

    /// RFC 5280 mailbox subtrees: a whole address (`*` and every other character literal), a
    /// host, or a domain with a leading period.
    fileprivate func isWithinEmailSubtree(_ base: String) -> Bool {
        guard let at = lastIndex(of: "@") else { return false }
        if let baseAt = base.lastIndex(of: "@") {
            return self[..<at] == base[..<baseAt] && self[index(after: at)...].lowercased() == base[base.index(after: baseAt)...].lowercased()
        }
        return String(self[index(after: at)...]).isWithinHostSubtree(base)
    }
}
