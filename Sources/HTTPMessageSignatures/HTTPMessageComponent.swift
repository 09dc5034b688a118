import Foundation
import RawStructuredFieldValues

/// One thing an HTTP message signature covers (RFC 9421 §2): a header field (by its lowercased
/// name) or a derived component (`@method`, `@authority`, `@path`…), with the parameters that
/// say how its value is taken (`;sf`, `;key`, `;bs`, `;req`, `;name`).
///
/// ```swift
/// let covered: [HTTPMessageComponent] = [.method, .authority, .path, .queryParameter("account"),
///                                        .field("content-digest"), .field("content-type")]
/// ```
public struct HTTPMessageComponent: Sendable, Hashable, CustomStringConvertible {
    /// A parameter of a component identifier (§2.1, §2.2.8, §2.4).
    public enum Parameter: Sendable, Hashable {
        /// `;sf`: the field's value re-serialized as a structured field (dictionary or list).
        case structured
        /// `;key="…"`: one member of a dictionary field, serialized.
        case key(String)
        /// `;bs`: each field line's value as a byte sequence, so that lines with commas or
        /// odd spaces are covered exactly.
        case byteSequence
        /// `;req`: in a response's signature, the component of the request it answers.
        case request
        /// `;name="…"`: the query parameter `@query-param` covers.
        case name(String)
        /// `;tr`: a trailer field. Read but not supported: a signature naming it is refused.
        case trailer
    }

    /// The component's name: a lowercased field name, or a derived name beginning with `@`.
    public let name: String
    /// Its parameters, in the order they are serialized.
    public let parameters: [Parameter]

    /// A component; `name` is lowercased.
    public init(_ name: String, parameters: [Parameter] = []) {
        self.name = name.lowercased()
        self.parameters = parameters
    }

    /// `@method`: the request's method.
    public static let method = HTTPMessageComponent("@method")
    /// `@target-uri`: the request's full URL.
    public static let targetURI = HTTPMessageComponent("@target-uri")
    /// `@authority`: host and (non-default) port, lowercased.
    public static let authority = HTTPMessageComponent("@authority")
    /// `@scheme`: `https` or `http`.
    public static let scheme = HTTPMessageComponent("@scheme")
    /// `@request-target`: the path and query as sent on the request line.
    public static let requestTarget = HTTPMessageComponent("@request-target")
    /// `@path`: the URL's percent-encoded path (`/` when empty).
    public static let path = HTTPMessageComponent("@path")
    /// `@query`: the URL's query with its `?` (`?` alone when there is none).
    public static let query = HTTPMessageComponent("@query")
    /// `@status`: a response's status code.
    public static let status = HTTPMessageComponent("@status")

    /// `@query-param;name="…"`: one named query parameter's value.
    public static func queryParameter(_ name: String) -> HTTPMessageComponent {
        HTTPMessageComponent("@query-param", parameters: [.name(name)])
    }

    /// A header field, by name.
    public static func field(_ name: String) -> HTTPMessageComponent { HTTPMessageComponent(name) }

    /// One member of a dictionary header field (`;key`).
    public static func field(_ name: String, key: String) -> HTTPMessageComponent {
        HTTPMessageComponent(name, parameters: [.key(key)])
    }

    /// This component of the request a response answers (`;req`).
    public var ofRequest: HTTPMessageComponent {
        HTTPMessageComponent(name, parameters: parameters + [.request])
    }

    /// Whether it is a derived component (its name begins with `@`).
    public var isDerived: Bool { name.hasPrefix("@") }

    /// Reads one component identifier as written in `Signature-Input` or on a command line:
    /// `"@query-param";name="Pet"`, `"content-type"`, or a bare `@method` or `content-type`.
    /// - Throws: ``HTTPSignatureError/invalidComponent(_:reason:)`` for what is not one.
    public init(parsing text: String) throws(HTTPSignatureError) {
        let serialized = text.hasPrefix("\"") ? text : "\"\(text)\""
        let item: Item
        do {
            var parser = StructuredFieldValueParser(Array(serialized.utf8))
            item = try parser.parseItemFieldValue()
        } catch {
            throw .invalidComponent(text, reason: "not a structured-field string with parameters")
        }
        self = try HTTPMessageComponent(item: item, text: text)
    }

    /// The component an item of a `Signature-Input` inner list names.
    init(item: Item, text: String? = nil) throws(HTTPSignatureError) {
        // The identifier as written, for a refusal only (writing it costs a serialization).
        func shown() -> String { text ?? Self.describe(item) }
        guard case .string(let name) = item.rfc9651BareItem else {
            throw .invalidComponent(shown(), reason: "a component identifier is a quoted string")
        }
        guard !name.isEmpty, !name.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
            throw .invalidComponent(shown(), reason: "a component name is lowercase and not empty")
        }
        var parameters: [Parameter] = []
        for (key, value) in item.rfc9651Parameters {
            switch (key, value) {
            case ("sf", .bool(true)): parameters.append(.structured)
            case ("bs", .bool(true)): parameters.append(.byteSequence)
            case ("req", .bool(true)): parameters.append(.request)
            case ("tr", .bool(true)): parameters.append(.trailer)
            case ("key", .string(let member)): parameters.append(.key(member))
            case ("name", .string(let query)): parameters.append(.name(query))
            default: throw .invalidComponent(shown(), reason: "the parameter '\(key)' is not one RFC 9421 defines (sf, key, bs, req, tr, name)")
            }
        }
        self.name = name
        self.parameters = parameters
    }

    /// The structured-field item that identifies it (the quoted name with its parameters).
    package var item: Item {
        var serialized = OrderedMap<String, RFC9651BareItem>()
        for parameter in parameters {
            switch parameter {
            case .structured: serialized["sf"] = .bool(true)
            case .key(let member): serialized["key"] = .string(member)
            case .byteSequence: serialized["bs"] = .bool(true)
            case .request: serialized["req"] = .bool(true)
            case .name(let query): serialized["name"] = .string(query)
            case .trailer: serialized["tr"] = .bool(true)
            }
        }
        return Item(bareItem: .string(name), parameters: serialized)
    }

    /// The identifier as it appears in a signature base and in `Signature-Input`:
    /// `"@query-param";name="Pet"`.
    public var description: String { Self.describe(item) }

    private static func describe(_ item: Item) -> String {
        var serializer = StructuredFieldValueSerializer()
        guard let bytes = try? serializer.writeItemFieldValue(item) else { return "\(item)" }
        return String(decoding: bytes, as: UTF8.self)
    }

    var hasRequestParameter: Bool { parameters.contains(.request) }

    /// The same component without `;req` (how it is looked up in the request).
    var withoutRequestParameter: HTTPMessageComponent {
        HTTPMessageComponent(name, parameters: parameters.filter { $0 != .request })
    }
}
