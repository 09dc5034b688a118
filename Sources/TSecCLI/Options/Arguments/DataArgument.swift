import ArgumentParser
import Atomics
import Foundation

/// One part of a request body given by curl's data options, which `tsec get` joins with `&` in
/// the order they stand on the command line, whatever the option, as curl does:
///
/// - `-d`/`--data`/`--data-ascii TEXT`: the text; `@FILE` a file's content with its carriage
///   returns and line feeds taken out (`@-` standard input);
/// - `--data-binary TEXT`: the same, a file's content as it is;
/// - `--data-raw TEXT`: the text, a leading `@` included;
/// - `--data-urlencode`: `CONTENT`, `=CONTENT`, `NAME=CONTENT`, `@FILE` or `NAME@FILE`, the
///   content (or the file's, as it is) percent-encoded, the name as it is.
struct DataArgument: Sendable {
    /// Which of curl's options gave the part.
    enum Kind: Sendable {
        case ascii, binary, raw, urlencode
    }

    let kind: Kind
    let text: String
    /// Where the part stood among the data options of the command line: the argument parser
    /// reads them in order, and each kind comes in a list of its own.
    let position: Int

    /// Counts the parts as the argument parser reads them.
    private static let nextPosition = ManagedAtomic<Int>(0)

    init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
        position = Self.nextPosition.loadThenWrappingIncrement(ordering: .relaxed)
    }

    /// The part's bytes, reading its file if it names one (a failure names the file).
    func bytes() throws -> Data {
        switch kind {
        case .raw:
            return Data(text.utf8)
        case .ascii, .binary:
            guard text.hasPrefix("@") else { return Data(text.utf8) }
            let content = try ArgumentFile.readArgument(String(text.dropFirst()), as: "the request body file")
            return kind == .binary ? content : content.filter { $0 != 0x0D && $0 != 0x0A }
        case .urlencode:
            return try urlEncoded()
        }
    }

    /// `--data-urlencode`'s part: the name is what precedes the first `=` (or, with no `=`, the
    /// first `@`, which makes the rest a file name); the content is percent-encoded.
    private func urlEncoded() throws -> Data {
        let separator = text.firstIndex(of: "=") ?? text.firstIndex(of: "@")
        let name = separator.map { String(text[..<$0]) } ?? ""
        let rest = separator.map { String(text[text.index(after: $0)...]) } ?? text
        let content: Data
        if let separator, text[separator] == "@" {
            content = try ArgumentFile.readArgument(rest, as: "the --data-urlencode file")
        } else {
            content = Data(rest.utf8)
        }
        let encoded = Self.percentEncoded(content)
        return Data((name.isEmpty ? encoded : name + "=" + encoded).utf8)
    }

    /// Every byte but ASCII letters, digits, `-`, `.`, `_` and `~` as `%XX` (curl's
    /// `curl_easy_escape`: a space is `%20`, not `+`).
    static func percentEncoded(_ bytes: Data) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// The body the parts make: each one's bytes, in command-line order, joined with `&`.
    static func body(of parts: [DataArgument]) throws -> Data {
        Data(try parts.sorted { $0.position < $1.position }.map { try $0.bytes() }.joined(separator: [UInt8(ascii: "&")]))
    }
}

/// A kind of data option, for the argument parser's types.
protocol DataArgumentKind: Sendable {
    static var kind: DataArgument.Kind { get }
}

/// `-d`/`--data`/`--data-ascii`.
enum ASCIIData: DataArgumentKind { static let kind = DataArgument.Kind.ascii }
/// `--data-binary`.
enum BinaryData: DataArgumentKind { static let kind = DataArgument.Kind.binary }
/// `--data-raw`.
enum RawData: DataArgumentKind { static let kind = DataArgument.Kind.raw }
/// `--data-urlencode`.
enum URLEncodedData: DataArgumentKind { static let kind = DataArgument.Kind.urlencode }

/// A data option's argument, as the argument parser reads it.
struct DataOption<Kind: DataArgumentKind>: ExpressibleByArgument, Sendable {
    let part: DataArgument

    init?(argument: String) {
        part = DataArgument(kind: Kind.kind, text: argument)
    }
}
