import FuzzDriver
import TransportSecurity

/// Host patterns, hosts and certificate names: the input is a pattern (or a certificate's DNS
/// name), a newline, and a host. Nothing may crash, and what is matched must agree with itself:
/// a name matches itself, a wildcard matches a host one label below its suffix and not the
/// suffix, a wildcard never matches an IP address, and an exact pattern matches exactly its own
/// bytes; under the compiled-in public suffix list, no wildcard over an ICANN-section suffix
/// matches.
func fuzzHostMatching(_ input: UnsafeRawBufferPointer) {
    let text = String(decoding: input, as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let patternText = String(parts[0])
    let hostText = parts.count > 1 ? String(parts[1]) : ""
    let host = ServerHost(hostText)
    // A name reads back as itself, except garbage that matches nothing anyway: one trailing dot
    // is dropped (`a..` reads as `a.`), and white space or control characters inside a name may
    // end up at its end once that dot is gone.
    let hasSpaceOrControl = host.name.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || $0.properties.isWhitespace }
    if !host.name.hasSuffix("."), !hasSpaceOrControl {
        precondition(ServerHost(host.name) == host, "a host's normalized name reads back as the same host")
    }

    _ = SubjectAltNameSyntaxPolicy.isWellFormed(.dnsName(patternText))
    let policy = SubjectAltNameHostPolicy(host: host, publicSuffixes: nil)
    _ = policy.matches(certificateName: patternText, host: hostText)
    // With the compiled-in public suffix list: a wildcard it accepts never covers an
    // ICANN-section suffix, and whatever it accepts, the list-less policy accepts too (the
    // list only ever refuses wildcards: `*.com`, never a plain name).
    let listed = SubjectAltNameHostPolicy(host: host)
    let listedMatch = listed.matches(certificateName: patternText, host: hostText)
    if listedMatch, let wildcard = try? HostPattern(patternText), wildcard.kind == .oneLabel {
        precondition(!PublicSuffixList.bundled.isICANNPublicSuffix(wildcard.suffix), "a wildcard over an ICANN suffix matched")
    }
    if listedMatch {
        precondition(policy.matches(certificateName: patternText, host: hostText), "the list made a name match that the label count refuses")
    }

    guard let pattern = try? HostPattern(patternText) else { return }
    let matched = pattern.matches(host)
    precondition(matched == pattern.matches(hostText), "a host matches the same way as text and as a ServerHost")
    if host.isIPAddress, pattern.kind != .exact { precondition(!matched, "a wildcard matched an IP address") }
    let reread = try? HostPattern(pattern.description)
    precondition(reread == pattern && reread?.hashValue == pattern.hashValue, "a pattern reads back as itself")
    switch pattern.kind {
    case .exact:
        // Byte equality, never String's canonical equivalence (U+00E5 and a + U+030A differ).
        precondition(matched == host.name.utf8.elementsEqual(pattern.suffix.utf8), "an exact pattern matched other bytes")
        if !ServerHost(pattern.suffix).isIPAddress { precondition(pattern.matches(pattern.suffix), "a name does not match itself") }
    case .oneLabel, .anyDepth:
        precondition(!pattern.matches(pattern.suffix), "a wildcard matched its own suffix")
        precondition(pattern.matches("a." + pattern.suffix), "a wildcard did not match a host one label below its suffix")
    }
}

@main
enum FuzzHostMatchingMain {
    static func main() { runFuzzer(fuzzHostMatching) }
}
