extension ServerHost {
    /// Why this host is not one a connection can be made to, or `nil` when it is: an address
    /// (an IPv6 one may name its zone, `fe80::1%eth0`), or a DNS name of ASCII letters, digits,
    /// `-` and `_` in labels of 1 to 63 bytes, 253 in all.
    ///
    /// A URL's host arrives percent-decoded: `http://api.example.com%00.other.example/` has the
    /// host `api.example.com`, a NUL and `.other.example`, which rules and certificates would judge
    /// while the resolver, reading a C string, looked up `api.example.com`.
    public var nameProblem: String? {
        guard case .dnsName(let name) = self, !Self.isScopedIPv6Address(name) else { return nil }
        return Self.nameProblem(name, emptyLabelAdvice: nil)
    }

    /// What keeps a lowercased name without its trailing dot from being a host name, if anything;
    /// `emptyLabelAdvice` follows the reason for an empty label.
    static func nameProblem(_ name: String, emptyLabelAdvice: String?) -> String? {
        guard name.isASCII else {
            let advice = "is not ASCII: write the name in its ASCII form (IDNA, xn--…), as hosts are looked up"
            return name.idnaASCIIForm.map { "\(advice): \($0)" } ?? advice
        }
        guard !name.isEmpty else { return "is empty" }
        guard name.utf8.count <= 253 else { return "is longer than the 253 characters of a host name" }
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty else {
                return "has an empty label (a leading dot or '..')" + (emptyLabelAdvice.map { ": \($0)" } ?? "")
            }
            guard label.utf8.count <= 63 else { return "has a label longer than 63 characters" }
            if let bad = label.unicodeScalars.first(where: { !(("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }) {
                // Control characters (a NUL, a line feed) are named, not printed.
                let shown = bad.value < 0x20 || bad.value == 0x7F ? "U+" + String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4) : "'\(bad)'"
                return "has the character \(shown), which no host name has"
            }
        }
        return nil
    }

    /// Whether `name` is an IPv6 address with a zone (`fe80::1%eth0`), as link-local addresses
    /// are written.
    private static func isScopedIPv6Address(_ name: String) -> Bool {
        guard let percent = name.firstIndex(of: "%") else { return false }
        let zone = name[name.index(after: percent)...]
        let address = String(name[..<percent])
        return !zone.isEmpty && zone.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") }
            && address.contains(":") && canonicalIPAddress(address) != nil
    }
}

extension String {
    /// The text with `0`s in front up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
