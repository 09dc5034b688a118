import SwiftASN1
import X509

extension DistinguishedName {
    /// Whether this name lies in the directoryName subtree `base` (RFC 5280 §4.2.1.10): its
    /// first relative names match all of `base`'s, as RFC 5280 §7.1 compares names, not their
    /// encodings (`O=Example` as a PrintableString, a UTF8String, a BMPString or a TeletexString,
    /// or as `example` or ` Example `, is one name). Comparing bytes would let a CA constrained
    /// to exclude `O=Evil` issue for `O=evil`, or for `O=Evil` written as a BMPString.
    /// - Returns: `nil` when a value of a string type does not decode, so that the subtree can
    ///   decide nothing about the name (which then fails closed).
    func isWithin(directorySubtree base: DistinguishedName) -> Bool? {
        let names = Array(self)
        let bases = Array(base)
        guard names.count >= bases.count else { return false }
        var undecidable = false
        for (name, base) in zip(names, bases) {
            switch name.matches(base) {
            case false?: return false
            case nil: undecidable = true
            case true?: continue
            }
        }
        return undecidable ? nil : true
    }
}

extension RelativeDistinguishedName {
    /// Whether both hold the same attributes, in any order (an RDN is a set); `nil` when that
    /// depends on a value that does not decode.
    func matches(_ other: RelativeDistinguishedName) -> Bool? {
        let mine = Array(self)
        var unmatched = Array(other)
        guard mine.count == unmatched.count else { return false }
        var undecidable = false
        for attribute in mine {
            if let index = unmatched.firstIndex(where: { attribute.matches($0) == true }) {
                unmatched.remove(at: index)
            } else if unmatched.contains(where: { attribute.matches($0) == nil }) {
                undecidable = true
            } else {
                return false
            }
        }
        return undecidable ? nil : true
    }
}

extension RelativeDistinguishedName.Attribute {
    /// What a value is compared as.
    enum ComparedValue: Equatable {
        /// A string (of any ASN.1 string type), prepared: case folded, spaces trimmed and
        /// collapsed (RFC 4518's preparation, simplified).
        case text(String)
        /// A value of another type: its encoding.
        case encoding([UInt8])
        /// A value of a string type whose bytes are not that type's text.
        case undecodable
    }

    /// Same type and equal values; `nil` when either value does not decode.
    func matches(_ other: RelativeDistinguishedName.Attribute) -> Bool? {
        guard type == other.type else { return false }
        let (mine, theirs) = (comparedValue, other.comparedValue)
        if mine == .undecodable || theirs == .undecodable { return nil }
        return mine == theirs
    }

    /// The value as compared: swift-certificates' text for the string types it reads, else the
    /// text of the other string types decoded here, else the encoding.
    var comparedValue: ComparedValue {
        if let text = String(value) { return .text(Self.prepared(text)) }
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(self)) != nil, let root = try? DER.parse(serializer.serializedBytes),
            case .constructed(let children) = root.content
        else { return .undecodable }
        let nodes = Array(children)
        guard nodes.count == 2 else { return .undecodable }
        let node = nodes[1]
        guard node.identifier.tagClass == .universal, case .primitive(let bytes) = node.content else {
            return .encoding(Array(node.encodedBytes))
        }
        let text: String?
        switch node.identifier.tagNumber {
        case 12, 18, 19, 22, 26:  // UTF8String, NumericString, PrintableString, IA5String, VisibleString
            text = String(validating: Array(bytes), as: UTF8.self)
        case 30:  // BMPString: UCS-2, big-endian
            text = Self.decodeBigEndian(Array(bytes), width: 2)
        case 28:  // UniversalString: UCS-4, big-endian
            text = Self.decodeBigEndian(Array(bytes), width: 4)
        case 20:  // TeletexString: read as Latin-1, as every other verifier reads it
            text = String(bytes.map { Character(Unicode.Scalar($0)) })
        default:
            return .encoding(Array(node.encodedBytes))
        }
        return text.map { .text(Self.prepared($0)) } ?? .undecodable
    }

    /// Big-endian code units of `width` bytes as text; `nil` for a ragged length or a unit that
    /// is no Unicode scalar (a surrogate, say).
    static func decodeBigEndian(_ bytes: [UInt8], width: Int) -> String? {
        guard bytes.count % width == 0 else { return nil }
        var scalars = String.UnicodeScalarView()
        for start in stride(from: 0, to: bytes.count, by: width) {
            let value = bytes[start..<start + width].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard let scalar = Unicode.Scalar(value) else { return nil }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// The text compared: lowercased, spaces trimmed and collapsed.
    static func prepared(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
