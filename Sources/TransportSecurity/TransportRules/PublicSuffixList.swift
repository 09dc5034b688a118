import Foundation

/// The public suffix list (publicsuffix.org): names under which anyone may register a domain
/// (`com`, `co.uk`, `github.io`). Pinning or excepting such a name with subdomains covers
/// domains of unrelated owners.
public struct PublicSuffixList: Sendable, CustomStringConvertible {
    /// Where Debian's `publicsuffix` package puts the list.
    public static let debianPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    private let rules: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>

    /// Parses the list's text format: one rule per line, `//` comments, `*.` wildcards and `!`
    /// exceptions. An internationalized rule (the list writes `公司.cn`, not `xn--55qx5d.cn`) is
    /// kept in both forms, since certificates, DNS and transport-rule keys name domains in the
    /// ASCII form.
    public init(text: String) {
        var rules: Set<String> = []
        var wildcards: Set<String> = []
        var exceptions: Set<String> = []
        for line in text.split(whereSeparator: \.isNewline) {
            let rule = line.split(whereSeparator: \.isWhitespace).first.map { String($0).lowercased() } ?? ""
            if rule.isEmpty || rule.hasPrefix("//") { continue }
            if rule.hasPrefix("!") {
                exceptions.formUnion(Self.forms(of: String(rule.dropFirst())))
            } else if rule.hasPrefix("*.") {
                wildcards.formUnion(Self.forms(of: String(rule.dropFirst(2))))
            } else {
                rules.formUnion(Self.forms(of: rule))
            }
        }
        self.rules = rules
        self.wildcards = wildcards
        self.exceptions = exceptions
    }

    /// A rule's name as written and, for an internationalized one, in its ASCII (IDNA, `xn--…`)
    /// form as well, as `URL` converts a host.
    static func forms(of name: String) -> [String] {
        [name] + (name.idnaASCIIForm.map { [$0] } ?? [])
    }

    /// Reads the list from a file (Debian's by default).
    /// - Throws: ``TransportSecurityConfigurationError`` when the file cannot be read.
    public init(contentsOf path: String = PublicSuffixList.debianPath) throws {
        let data: Data
        do {
            data = try InputFile.read(path)
        } catch {
            throw TransportSecurityConfigurationError(
                source: path,
                reason: "the public suffix list cannot be read: \(error) (Debian: apt-get install publicsuffix)"
            )
        }
        self.init(text: String(decoding: data, as: UTF8.self))
    }

    /// Debian's list, read once; `nil` when the `publicsuffix` package is not installed.
    public static let system: PublicSuffixList? = try? PublicSuffixList()

    /// How many rules of each kind the list holds (an internationalized rule counts in both its
    /// forms), not the thousands of rules themselves.
    public var description: String {
        "public suffix list: \(rules.count) rules, \(wildcards.count) wildcard rules, \(exceptions.count) exceptions"
    }

    /// Whether `name` is itself a public suffix.
    public func isPublicSuffix(_ name: String) -> Bool {
        var host = name.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if exceptions.contains(host) { return false }
        if rules.contains(host) { return true }
        if let dot = host.firstIndex(of: "."), wildcards.contains(String(host[host.index(after: dot)...])) { return true }
        // A single label is a top-level domain, public whether or not the list names it.
        return !host.contains(".")
    }
}
