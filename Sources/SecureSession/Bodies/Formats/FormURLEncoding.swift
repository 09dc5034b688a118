import Foundation
import TransportSecurity

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
    static func encode(_ text: String) -> String { FormPercentEncoding.encode(bytes: text.utf8) }
}
