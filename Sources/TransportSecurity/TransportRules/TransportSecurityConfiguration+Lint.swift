import Foundation

extension TransportSecurityConfiguration {
    /// Risky or useless settings, each with its key path (`tsec lint`): ATS turned off by
    /// arbitrary loads, cleartext exceptions, TLS below 1.2, forward secrecy off, pin sets without
    /// a backup or expiring within 30 days (or expired), subdomains included under a public
    /// suffix, and entries that can never apply. Loading problems are reported by
    /// ``load(contentsOf:)``; these come on top.
    /// - Parameters:
    ///   - publicSuffixes: The public suffix list; `nil` skips that check.
    ///   - now: The moment pin-set expiry is judged at.
    public func lint(publicSuffixes: PublicSuffixList?, now: Date = Date()) -> [ConfigurationIssue] {
        var issues: [ConfigurationIssue] = []
        if allowsArbitraryLoads == true {
            if arbitraryLoadsEffective {
                issues.append(ConfigurationIssue(.error, keyPaths.ats("NSAllowsArbitraryLoads"),
                    "ATS is off for every domain without an exception: cleartext and weak TLS are accepted (like the seeds' configuration 3, which accepts any certificate); name the domains that need it in NSExceptionDomains instead"))
            } else {
                issues.append(ConfigurationIssue(.warning, keyPaths.ats("NSAllowsArbitraryLoads"),
                    "ignored because NSAllowsArbitraryLoadsForMedia, NSAllowsArbitraryLoadsInWebContent or NSAllowsLocalNetworking is present"))
            }
        }
        for entry in exceptionDomains {
            let path = keyPaths.ats("NSExceptionDomains.\(entry.key)")
            if entry.allowsInsecureHTTPLoads {
                issues.append(ConfigurationIssue(.warning, "\(path).NSExceptionAllowsInsecureHTTPLoads", "cleartext http:// is allowed\(entry.includesSubdomains ? " for the domain and every subdomain" : "")"))
            }
            if entry.minimumTLSVersion < .tls12 {
                issues.append(ConfigurationIssue(.warning, "\(path).NSExceptionMinimumTLSVersion", "\(entry.minimumTLSVersion.rawValue) is below TLS 1.2"))
            }
            if !entry.requiresForwardSecrecy {
                issues.append(ConfigurationIssue(.warning, "\(path).NSExceptionRequiresForwardSecrecy", "forward secrecy is off, and with it the key-size check"))
            }
            if entry.requiresCertificateTransparency {
                issues.append(ConfigurationIssue(.warning, "\(path).NSRequiresCertificateTransparency", "obsolete on Apple systems; here it refuses every connection until SCTs can be verified"))
            }
            issues += publicSuffixIssue(entry.key, entry.includesSubdomains, path: "\(path).NSIncludesSubdomains", publicSuffixes)
            if let shadow = shadowingAncestor(of: entry) {
                issues.append(ConfigurationIssue(.warning, path, "sets nothing its including ancestor \(shadow.key) does not already set; it can be removed"))
            }
        }
        for entry in pinnedDomains {
            let path = keyPaths.ats("NSPinnedDomains.\(entry.key)")
            issues += publicSuffixIssue(entry.key, entry.includesSubdomains, path: "\(path).NSIncludesSubdomains", publicSuffixes)
            let count = (entry.caIdentities ?? []).count + (entry.leafIdentities ?? []).count
            if count == 1 {
                issues.append(ConfigurationIssue(.warning, path, "one pin only: a key change locks clients out; add a backup pin"))
            }
        }
        for set in pinSets {
            let path = "\(keyPaths.pinSets).\(set.key)"
            issues += publicSuffixIssue(set.key, set.includesSubdomains, path: "\(path).TSKIncludeSubdomains", publicSuffixes)
            if let expiry = set.expirationDate {
                if expiry <= now {
                    issues.append(ConfigurationIssue(.warning, "\(path).TSKExpirationDate", "expired on \(expiry.formatted(.iso8601)): the pin set is no longer enforced"))
                } else if expiry.timeIntervalSince(now) < 30 * 86_400 {
                    let days = Int(expiry.timeIntervalSince(now) / 86_400)
                    issues.append(ConfigurationIssue(.warning, "\(path).TSKExpirationDate", "expires in \(days) day\(days == 1 ? "" : "s"): ship new pins before then"))
                }
            }
            if !set.enforces {
                issues.append(ConfigurationIssue(.warning, "\(path).TSKEnforcePinning", "report-only: a pin failure is reported but the connection goes through"))
            }
            if set.excludesSubdomainFromParentPolicy, !hasIncludingAncestor(set.key, in: pinSets.map { ($0.key, $0.includesSubdomains) }) {
                issues.append(ConfigurationIssue(.warning, "\(path).TSKExcludeSubdomainFromParentPolicy", "no parent pin set includes subdomains, so there is nothing to exclude from"))
            }
        }
        return issues
    }

    private func publicSuffixIssue(_ key: DomainKey, _ includesSubdomains: Bool, path: String, _ list: PublicSuffixList?) -> [ConfigurationIssue] {
        guard includesSubdomains, case .dnsName(let name) = key, let list, list.isPublicSuffix(name) else { return [] }
        return [ConfigurationIssue(.error, path, "\(name) is a public suffix: including its subdomains covers domains of unrelated owners")]
    }

    /// The including ancestor whose settings equal `entry`'s: the entry changes nothing.
    private func shadowingAncestor(of entry: ExceptionDomain) -> ExceptionDomain? {
        guard case .dnsName(let name) = entry.key,
            let index = Self.includingAncestor(of: name, in: exceptionDomains.map { ($0.key, $0.includesSubdomains) })
        else { return nil }
        let ancestor = exceptionDomains[index]
        var same = entry
        same.key = ancestor.key
        return same == ancestor ? ancestor : nil
    }

    private func hasIncludingAncestor(_ key: DomainKey, in keys: [(key: DomainKey, includesSubdomains: Bool)]) -> Bool {
        guard case .dnsName(let name) = key else { return false }
        return Self.includingAncestor(of: name, in: keys) != nil
    }
}
