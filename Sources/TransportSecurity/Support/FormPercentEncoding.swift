import Foundation

/// The percent-encoding of `application/x-www-form-urlencoded` (every byte but letters, digits
/// and `*-._` as `%XX` from UTF-8): form bodies and RFC 9421's `@query-param` write names and
/// values this way.
package enum FormPercentEncoding {
    /// Bytes encoded as a name or value; a space as `space` (`+` in a body; RFC 9421's
    /// `@query-param` writes `%20`).
    package static func encode(bytes: some Sequence<UInt8>, space: String = "+") -> String {
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
