import Crypto
import Foundation

/// The public suffix list (publicsuffix.org): names under which anyone may register a domain
/// (`com`, `co.uk`, `github.io`). Pinning or excepting such a name with subdomains covers
/// domains of unrelated owners.
///
/// The list has two sections, kept apart here:
/// - the **ICANN** section: the suffixes the domain registries run (`com`, `co.uk`, `*.ck`);
/// - the **private** section: suffixes companies run for their customers (`s3.amazonaws.com`,
///   `github.io`, `azurewebsites.net`, `cloudfront.net`, `appspot.com`, `herokuapp.com`).
///
/// A certificate's wildcard is refused only over an ICANN-section suffix (`*.com`, `*.co.uk`),
/// as Chrome and Firefox refuse it: the companies of the private section are the ones who get
/// `*.s3.amazonaws.com` or `*.github.io` certificates issued, and serve them. Cookies and
/// `tsec lint`'s `includeSubdomains` warnings use both sections.
///
/// ``bundled`` is a snapshot of the list compiled into the library, used by default everywhere,
/// so that a certificate gets the same answer on every machine; a newer list can be read with
/// ``init(contentsOf:)`` and passed where a list is taken (``TrustEvaluationOptions``).
public struct PublicSuffixList: Sendable, Hashable, CustomStringConvertible {
    /// The part of the list a rule comes from.
    public enum Section: String, Sendable, Hashable, Codable {
        /// `// ===BEGIN ICANN DOMAINS===`: the suffixes of domain registries.
        case icann
        /// `// ===BEGIN PRIVATE DOMAINS===`: suffixes companies run for their customers.
        case `private`
    }

    /// Where Debian's `publicsuffix` package puts the list.
    public static let debianPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    /// The snapshot of the list compiled into the library (``snapshotVersion``), parsed once.
    public static let bundled = PublicSuffixList(text: snapshotText, version: snapshotVersion)

    /// Where the list came from: the snapshot's version, a file's path, or `text`.
    public let version: String
    /// The rules of each section, each section read on its own: an ICANN suffix is one by the
    /// ICANN rules alone, whatever the private section says about the same name.
    private let icann: Rules
    private let privateSection: Rules
    /// SHA-256 of the list's text: two lists are equal when their texts are.
    private let digest: [UInt8]

    /// One section's rules, in the forms names are compared in.
    private struct Rules {
        var names: Set<String> = []
        var wildcards: Set<String> = []
        var exceptions: Set<String> = []

        /// Whether `host` (lowercased, without a trailing dot) is a suffix by these rules: a
        /// rule names it, or a wildcard rule names its parent, and no exception rule names it.
        func cover(_ host: String) -> Bool {
            if exceptions.contains(host) { return false }
            if names.contains(host) { return true }
            guard let dot = host.firstIndex(of: ".") else { return false }
            return wildcards.contains(String(host[host.index(after: dot)...]))
        }
    }

    /// Parses the list's text format: one rule per line, `//` comments, `*.` wildcards and `!`
    /// exceptions, and the `===BEGIN ICANN DOMAINS===` and `===BEGIN PRIVATE DOMAINS===`
    /// comments that open its sections. A rule outside both sections counts as ICANN (the
    /// stricter reading). An internationalized rule (the list writes `公司.cn`, not
    /// `xn--55qx5d.cn`) is kept in both forms, since certificates, DNS and transport-rule keys
    /// name domains in the ASCII form.
    /// - Parameters:
    ///   - text: The list.
    ///   - version: What to call it in messages.
    public init(text: String, version: String = "text") {
        var icann = Rules()
        var privateSection = Rules()
        var section = Section.icann
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("//") {
                if line.contains("===BEGIN PRIVATE DOMAINS===") { section = .private }
                if line.contains("===BEGIN ICANN DOMAINS===") || line.contains("===END PRIVATE DOMAINS===") { section = .icann }
                continue
            }
            let rule = line.split(whereSeparator: \.isWhitespace).first.map { String($0).lowercased() } ?? ""
            if rule.isEmpty { continue }
            func add(_ keyPath: WritableKeyPath<Rules, Set<String>>, _ name: String) {
                if section == .icann { icann[keyPath: keyPath].formUnion(Self.forms(of: name)) } else { privateSection[keyPath: keyPath].formUnion(Self.forms(of: name)) }
            }
            if rule.hasPrefix("!") {
                add(\.exceptions, String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                add(\.wildcards, String(rule.dropFirst(2)))
            } else {
                add(\.names, rule)
            }
        }
        self.icann = icann
        self.privateSection = privateSection
        self.version = version
        self.digest = Array(SHA256.hash(data: Data(text.utf8)))
    }

    /// A rule's name as written and, for an internationalized one, in its ASCII (IDNA, `xn--…`)
    /// form as well, as `URL` converts a host.
    static func forms(of name: String) -> [String] {
        [name] + (name.idnaASCIIForm.map { [$0] } ?? [])
    }

    /// Reads a list from a file (a newer copy of publicsuffix.org's list than ``bundled``).
    /// - Throws: ``TransportSecurityConfigurationError`` when the file cannot be read or holds no
    ///   rule.
    public init(contentsOf path: String) throws {
        let data: Data
        do {
            data = try InputFile.read(path)
        } catch {
            throw TransportSecurityConfigurationError(source: path, reason: "the public suffix list cannot be read: \(error)")
        }
        self.init(text: String(decoding: data, as: UTF8.self), version: path)
        guard !icann.names.isEmpty || !icann.wildcards.isEmpty || !privateSection.names.isEmpty || !privateSection.wildcards.isEmpty else {
            throw TransportSecurityConfigurationError(source: path, reason: "holds no public suffix rule: it is not a public suffix list")
        }
    }

    /// The version and how many rules of each section the list holds (an internationalized rule
    /// counts in both its forms), not the thousands of rules themselves.
    public var description: String {
        func count(_ rules: Rules) -> String { "\(rules.names.count) rules, \(rules.wildcards.count) wildcard rules, \(rules.exceptions.count) exceptions" }
        return "public suffix list \(version): ICANN \(count(icann)); private \(count(privateSection))"
    }

    /// Whether `name` is itself a public suffix, of either section.
    public func isPublicSuffix(_ name: String) -> Bool { section(of: name) != nil }

    /// Whether `name` is a public suffix of the ICANN section (`com`, `co.uk`): what a
    /// certificate's wildcard may not cover. Decided by the ICANN rules alone.
    public func isICANNPublicSuffix(_ name: String) -> Bool { section(of: name) == .icann }

    /// The section whose rules make `name` a public suffix (ICANN first), or `nil` when it is
    /// none. A single label is a top-level domain, an ICANN suffix whether or not the list
    /// names it (unless an ICANN exception rule names it).
    public func section(of name: String) -> Section? {
        var host = name.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if icann.cover(host) || (!host.contains(".") && !icann.exceptions.contains(host)) { return .icann }
        return privateSection.cover(host) ? .private : nil
    }

    /// Lists are equal when their texts are.
    public static func == (lhs: PublicSuffixList, rhs: PublicSuffixList) -> Bool { lhs.digest == rhs.digest }

    /// Hashes the text's digest.
    public func hash(into hasher: inout Hasher) { hasher.combine(digest) }
}
