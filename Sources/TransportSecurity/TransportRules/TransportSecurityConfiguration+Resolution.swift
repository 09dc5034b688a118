import Foundation

extension TransportSecurityConfiguration {
    /// The rule for `url`'s host.
    public func rule(for url: URL) -> TransportRule { rule(forHost: url.host ?? "") }

    /// The rule for `host` (a DNS name or an IP literal), by these decisions: the exact
    /// exception key first, then the nearest ancestor whose entry has `NSIncludesSubdomains`
    /// (any depth), or for addresses the longest matching range; an entry, even empty,
    /// overrides every global key; local names and addresses allow cleartext unless
    /// `NSAllowsLocalNetworking` is false; public IP literals need an entry; otherwise the global
    /// keys, where `NSAllowsArbitraryLoads` counts only without the narrower global keys.
    public func rule(forHost text: String) -> TransportRule {
        let host = ServerHost(text)
        let name = host.name
        let exceptionMatch = Self.lookup(host, in: exceptionDomains.map { ($0.key, $0.includesSubdomains) })
        let exception = exceptionMatch.map { exceptionDomains[$0.index] }
        let pinned = pinnedDomain(for: host)
        let pinSet = self.pinSet(for: host)
        let atsKey = "NSAppTransportSecurity"
        let exceptionRemedy = "\(atsKey).NSExceptionDomains.\(exception?.key.description ?? name).NSExceptionAllowsInsecureHTTPLoads"

        let origin: TransportRule.Origin
        let allowsCleartext: Bool
        let remedy: String
        let enforcesATS: Bool
        if let exception, let exceptionMatch {
            origin = exceptionMatch.origin
            allowsCleartext = exception.allowsInsecureHTTPLoads
            remedy = exceptionRemedy
            enforcesATS = true
        } else if Self.isLocal(host) {
            origin = .localNetwork
            allowsCleartext = allowsLocalNetworking != false
            remedy = "\(atsKey).NSAllowsLocalNetworking (it is false), or \(exceptionRemedy)"
            enforcesATS = allowsLocalNetworking == false
        } else if host.isIPAddress {
            origin = .global
            allowsCleartext = false
            remedy = "\(exceptionRemedy) (a public IP address needs an exception entry)"
            enforcesATS = true
        } else {
            origin = .global
            allowsCleartext = arbitraryLoadsEffective
            remedy = allowsArbitraryLoads == true
                ? "\(exceptionRemedy) (\(atsKey).NSAllowsArbitraryLoads is ignored because a narrower global key is present)"
                : "\(exceptionRemedy), or \(atsKey).NSAllowsArbitraryLoads"
            enforcesATS = !arbitraryLoadsEffective
        }
        return TransportRule(
            host: name,
            origin: origin,
            allowsCleartext: allowsCleartext,
            cleartextRemedy: remedy,
            enforcesATS: enforcesATS,
            exception: exception,
            pinnedDomain: pinned,
            pinSet: pinSet
        )
    }

    /// The `NSPinnedDomains` entry for `host`: its own, combined with that of its nearest
    /// ancestor whose entry includes subdomains (Apple puts the pins of every matching entry
    /// together); for an address, its own or the longest range's.
    func pinnedDomain(for host: ServerHost) -> PinnedDomain? {
        let keys = pinnedDomains.map { ($0.key, $0.includesSubdomains) }
        guard case .dnsName(let name) = host else { return Self.lookup(host, in: keys).map { pinnedDomains[$0.index] } }
        let exact = pinnedDomains.first { $0.key.isDNSName(name) }
        let ancestor = Self.includingAncestor(of: name, in: keys).map { pinnedDomains[$0] }
        switch (exact, ancestor) {
        case (let exact?, let ancestor?): return exact.combined(with: ancestor)
        case (let exact?, nil): return exact
        case (nil, let ancestor): return ancestor
        }
    }

    /// The pin set for `host`: its own (none if it excludes itself from its parent's), else the
    /// nearest ancestor's that includes subdomains.
    func pinSet(for host: ServerHost) -> DomainPinSet? {
        guard let match = Self.lookup(host, in: pinSets.map { ($0.key, $0.includesSubdomains) }) else { return nil }
        let set = pinSets[match.index]
        if case .exception = match.origin, set.excludesSubdomainFromParentPolicy { return nil }
        return set
    }

    /// Finds the entry for `host` among `keys`: exact key, else nearest ancestor including
    /// subdomains (names), or exact address, else the longest range holding it (addresses; on
    /// equal prefixes the later key).
    static func lookup(_ host: ServerHost, in keys: [(key: DomainKey, includesSubdomains: Bool)]) -> (index: Int, origin: TransportRule.Origin)? {
        switch host {
        case .dnsName(let name):
            if let exact = keys.firstIndex(where: { $0.key.isDNSName(name) }) { return (exact, .exception(keys[exact].key)) }
            return includingAncestor(of: name, in: keys).map { ($0, .ancestorException(keys[$0].key)) }
        case .ipAddress(let text):
            guard let bytes = DomainKey.addressBytes(text) else { return nil }
            if let exact = keys.firstIndex(where: { $0.key == .address(bytes) }) { return (exact, .exception(keys[exact].key)) }
            var best: (index: Int, prefix: Int)?
            for (index, entry) in keys.enumerated() {
                guard entry.key.contains(bytes), case .range(_, let prefix) = entry.key else { continue }
                if best == nil || prefix >= best!.prefix { best = (index, prefix) }
            }
            return best.map { ($0.index, .rangeException(keys[$0.index].key)) }
        }
    }

    /// The nearest ancestor of `name` whose entry includes subdomains (any depth); ancestors
    /// whose entries do not are passed over.
    static func includingAncestor(of name: String, in keys: [(key: DomainKey, includesSubdomains: Bool)]) -> Int? {
        var labels = name.split(separator: ".").dropFirst()
        while !labels.isEmpty {
            let ancestor = labels.joined(separator: ".")
            if let index = keys.firstIndex(where: { $0.key.isDNSName(ancestor) && $0.includesSubdomains }) { return index }
            labels = labels.dropFirst()
        }
        return nil
    }

    /// Unqualified names (not the empty one), `localhost`, `.local` names, and loopback, private
    /// and link-local addresses.
    static func isLocal(_ host: ServerHost) -> Bool {
        switch host {
        case .dnsName(let name):
            // Bytes, not Characters: a dot followed by a combining mark is one Character that
            // is not ".", and would make `evil.\u{301}com` read as an unqualified name.
            let bytes = name.utf8
            // No host at all (a URL without one) is not an unqualified name.
            guard !bytes.isEmpty else { return false }
            return !bytes.contains(UInt8(ascii: ".")) || bytes.elementsEqual("localhost".utf8)
                || [".local", ".localhost"].contains { bytes.reversed().starts(with: $0.utf8.reversed()) }
        case .ipAddress(let text):
            guard let bytes = DomainKey.addressBytes(text) else { return false }
            let localRanges = ["127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "::1/128", "fc00::/7", "fe80::/10"]
            return localRanges.compactMap(DomainKey.init).contains { $0.contains(bytes) }
        }
    }
}
