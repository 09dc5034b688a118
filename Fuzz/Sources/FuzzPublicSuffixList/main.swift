import FuzzDriver
import TransportSecurity

/// The public suffix list's reader: any text is a list (possibly of no rule); nothing may crash,
/// and its answers must agree with themselves for every name the text mentions: an ICANN
/// suffix is a public suffix, a name's section does not depend on ASCII case or one trailing
/// dot, an exception rule makes its name no suffix, and two lists of the same text are equal.
func fuzzPublicSuffixList(_ input: UnsafeRawBufferPointer) {
    let text = String(decoding: input, as: UTF8.self)
    let list = PublicSuffixList(text: text)
    precondition(list == PublicSuffixList(text: text, version: "again"), "a list equals another of the same text")
    _ = list.description
    var names: [String] = []
    for line in text.split(whereSeparator: \.isNewline).prefix(64) {
        guard let word = line.split(whereSeparator: \.isWhitespace).first else { continue }
        var name = String(word)
        if name.hasPrefix("!") || name.hasPrefix("*.") { name.removeFirst(name.hasPrefix("!") ? 1 : 2) }
        names += [name, "a." + name, name + "."]
    }
    for name in names {
        let section = list.section(of: name)
        precondition(list.isPublicSuffix(name) == (section != nil), "isPublicSuffix agrees with section(of:)")
        precondition(list.isICANNPublicSuffix(name) == (section == .icann), "isICANNPublicSuffix agrees with section(of:)")
        precondition(list.section(of: name.uppercased()) == section || name.uppercased().lowercased() != name.lowercased(), "ASCII case changes nothing")
        if !name.hasSuffix(".") { precondition(list.section(of: name + ".") == section, "a trailing dot changes nothing") }
    }
    // The compiled-in list answers any of these names without crashing.
    for name in names.prefix(8) { _ = PublicSuffixList.bundled.section(of: name) }
}

@main
enum FuzzPublicSuffixListMain {
    static func main() { runFuzzer(fuzzPublicSuffixList) }
}
