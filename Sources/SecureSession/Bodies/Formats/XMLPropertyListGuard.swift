import Foundation
import TransportSecurity

/// Checks an XML property list before Foundation reads it: that it is UTF-8 text, and how deeply
/// it nests its containers.
///
/// `PropertyListDecoder` reads an XML list with a scanner that calls itself once for every
/// `<plist>`, `<array>` and `<dict>` it enters, without a bound: a 300 KB list nested 20,000
/// deep overflows the stack and kills the process, whatever type is being decoded. And it traps
/// on bytes that are not UTF-8 inside a number (`<integer>` followed by `FF` bytes: found by
/// `Fuzz/run.sh FuzzPropertyListBody`). (`PropertyListSerialization` refuses both, but leaks
/// about 600 bytes for every list it cannot read, which a server could send on every request.)
/// So a list that is not UTF-8 is refused here, and its text is walked the way that scanner
/// walks it, building nothing, and refused when nested deeper than ``maximumNesting``.
///
/// The walk reads what the scanner reads: a tag runs from `<` to the first `>` and is a container
/// when its name begins with `plist`, `array` or `dict` and no `/` comes before its `>`; a
/// comment runs to the first `-->`, a CDATA section to the first `]]>`, a processing instruction
/// to the first `?>`, and before the root element a document type to its `>`. Text outside tags
/// is skipped. Wherever the scanner would read the bytes some other way (a `<!` that is none of
/// these, text between the elements of a container, a close tag that does not close the open
/// container), it stops there with an error and reads no further, so the depth measured up to
/// that point is the depth it reached. The walk ends when the root container closes, as the
/// scanner does.
enum XMLPropertyListGuard {
    /// The deepest nesting read, the `<plist>` element included: the bound binary lists have
    /// (`PropertyListSerialization`'s own, 512).
    static let maximumNesting = BinaryPropertyListGuard.maximumNesting

    /// Why a list is refused.
    struct Refusal: Error {
        /// The reason, as a phrase.
        let reason: String
    }

    /// Throws when `data`, read as Foundation would read it, is text whose byte-order mark names
    /// an encoding it is not in, or an XML property list that is not UTF-8 or is nested deeper
    /// than ``maximumNesting``; returns for anything else (binary and OpenStep lists, which
    /// Foundation bounds itself).
    static func check(_ data: Data) throws(Refusal) {
        guard let text = try utf8Text(of: [UInt8](data)) else { return }
        var walk = Walk(text)
        guard walk.skipProlog() else { return }
        guard isUTF8(text) else { throw Refusal(reason: "an XML property list that is not UTF-8 text") }
        try walk.measure()
    }

    /// Whether `bytes` are well-formed UTF-8.
    private static func isUTF8(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// The UTF-8 text Foundation's XML scanner would read, as Foundation finds it: after a
    /// byte-order mark (UTF-32, UTF-16 or UTF-8, recognized exactly as Foundation does), converted
    /// to UTF-8; `nil` for a binary list.
    private static func utf8Text(of bytes: [UInt8]) throws(Refusal) -> [UInt8]? {
        guard !bytes.starts(with: Array("bplist".utf8)) else { return nil }
        func byte(_ index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
        let (encoding, markLength): (String.Encoding, Int) =
            switch (byte(0), byte(1), byte(2), byte(3)) {
            case (0, 0, 0xFE, 0xFF): (.utf32BigEndian, 4)
            case (0xFE, 0xFF, 0, 0): (.utf32LittleEndian, 4)
            case (0xFE, 0xFF, _, _): (.utf16BigEndian, 2)
            case (0xFF, 0xFE, _, _): (.utf16LittleEndian, 2)
            case (0xEF, 0xBB, 0xBF, _): (.utf8, 3)
            default: (.utf8, 0)
            }
        let afterMark = bytes.dropFirst(markLength)
        guard encoding != .utf8 else { return Array(afterMark) }
        guard let text = String(bytes: afterMark, encoding: encoding) else {
            throw Refusal(reason: "text that is not in the encoding its byte-order mark names")
        }
        return Array(text.utf8)
    }

    /// One walk through the text.
    private struct Walk {
        let text: [UInt8]
        var index = 0

        init(_ text: [UInt8]) { self.text = text }

        /// The depth of the root element and what it holds, from the end of the prolog.
        mutating func measure() throws(Refusal) {
            var depth = 0
            while let open = firstIndex(of: UInt8(ascii: "<"), from: index) {
                guard open + 1 < text.count else { return }
                switch text[open + 1] {
                case UInt8(ascii: "!"):
                    if let end = end(of: "<!--", at: open, closedBy: "-->") ?? end(of: "<![CDATA[", at: open, closedBy: "]]>") {
                        index = end
                    } else {
                        return
                    }
                case UInt8(ascii: "?"):
                    // Inside the root, the scanner looks for `?>` from the `?` itself.
                    guard let end = firstIndex(of: "?>", from: open + 1) else { return }
                    index = end + 2
                case UInt8(ascii: "/"):
                    guard let close = firstIndex(of: UInt8(ascii: ">"), from: open + 2) else { return }
                    if namesContainer(at: open + 2) {
                        depth -= 1
                        if depth <= 0 { return }
                    }
                    index = close + 1
                default:
                    guard let close = firstIndex(of: UInt8(ascii: ">"), from: open + 1) else { return }
                    if namesContainer(at: open + 1), text[close - 1] != UInt8(ascii: "/") {
                        depth += 1
                        guard depth <= XMLPropertyListGuard.maximumNesting else {
                            throw Refusal(reason: "an XML property list nested more than \(XMLPropertyListGuard.maximumNesting) levels deep")
                        }
                    }
                    index = close + 1
                }
            }
        }

        /// Moves past what may come before the root element: white space, comments, processing
        /// instructions and a document type. `false` when the scanner would stop before the root
        /// (text, an unterminated construct, an internal DTD subset, which it refuses).
        mutating func skipProlog() -> Bool {
            while true {
                while index < text.count, [0x20, 0x09, 0x0A, 0x0D].contains(text[index]) { index += 1 }
                guard index + 1 < text.count, text[index] == UInt8(ascii: "<") else { return false }
                switch text[index + 1] {
                case UInt8(ascii: "!"):
                    if let end = end(of: "<!--", at: index, closedBy: "-->") {
                        index = end
                    } else if starts(with: "<!DOCTYPE", at: index) {
                        guard let close = firstIndex(of: UInt8(ascii: ">"), from: index),
                            !text[index..<close].contains(UInt8(ascii: "["))
                        else { return false }
                        index = close + 1
                    } else {
                        return false
                    }
                case UInt8(ascii: "?"):
                    // Before the root, the scanner looks for `?>` after the `?`.
                    guard let end = firstIndex(of: "?>", from: index + 2) else { return false }
                    index = end + 2
                default:
                    return true
                }
            }
        }

        /// Whether the tag name at `position` is one the scanner reads as a container (it
        /// compares the name's beginning only).
        private func namesContainer(at position: Int) -> Bool {
            starts(with: "array", at: position) || starts(with: "dict", at: position) || starts(with: "plist", at: position)
        }

        /// When `opening` is at `position`: the index just past the first `closing` after it
        /// (`nil` when it never comes). `nil` too when `opening` is not there.
        private func end(of opening: String, at position: Int, closedBy closing: String) -> Int? {
            guard starts(with: opening, at: position) else { return nil }
            return firstIndex(of: closing, from: position + opening.utf8.count).map { $0 + closing.utf8.count }
        }

        private func starts(with prefix: String, at position: Int) -> Bool {
            let prefix = prefix.utf8
            guard position >= 0, text.count - position >= prefix.count else { return false }
            return text[position..<(position + prefix.count)].elementsEqual(prefix)
        }

        private func firstIndex(of byte: UInt8, from position: Int) -> Int? {
            guard position < text.count else { return nil }
            return text[position...].firstIndex(of: byte)
        }

        private func firstIndex(of pattern: String, from position: Int) -> Int? {
            guard let first = pattern.utf8.first else { return nil }
            var candidate = position
            while let found = firstIndex(of: first, from: candidate) {
                if starts(with: pattern, at: found) { return found }
                candidate = found + 1
            }
            return nil
        }
    }
}
