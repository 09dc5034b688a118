import Foundation

/// `application/x-www-form-urlencoded` bodies, as HTML forms and AFNetworking's request
/// serializer send parameters: `name=value` pairs joined by `&`, every byte but letters, digits
/// and `*-._` percent-encoded from UTF-8, a space written `+`.
public enum FormURLEncoding {
    /// The media type.
    public static let contentType = "application/x-www-form-urlencoded"

    /// The body for `fields`, in order (a name may repeat).
    public static func encode(_ fields: [(name: String, value: String)]) -> Data {
        Data(fields.map { encode($0.name) + "=" + encode($0.value) }.joined(separator: "&").utf8)
    }

    /// One name or value, encoded.
    static func encode(_ text: String) -> String { encode(bytes: text.utf8) }

    /// Bytes encoded as a name or value; a space as `space` (`+` in a body; RFC 9421's
    /// `@query-param` writes `%20`).
    static func encode(bytes: some Sequence<UInt8>, space: String = "+") -> String {
        var encoded = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: " "):
                encoded += space
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }
}
