import Foundation
import RawStructuredFieldValues

/// The metadata of one signature (RFC 9421 §2.3): what it covers and the parameters of its
/// `Signature-Input` member (`created`, `expires`, `nonce`, `alg`, `keyid`, `tag`).
public struct HTTPSignatureParameters: Sendable, Hashable {
    /// The covered components, in order.
    public var components: [HTTPMessageComponent]
    /// When it was made (`created`, whole seconds since 1970).
    public var created: Date?
    /// When it stops being valid (`expires`).
    public var expires: Date?
    /// A value used once (`nonce`), against replay.
    public var nonce: String?
    /// The algorithm (`alg`), when the signer says it.
    public var algorithm: String?
    /// The key's name (`keyid`).
    public var keyID: String?
    /// The application the signature is for (`tag`).
    public var tag: String?

    /// Creates the parameters of a signature.
    public init(
        components: [HTTPMessageComponent],
        created: Date? = nil,
        expires: Date? = nil,
        nonce: String? = nil,
        algorithm: String? = nil,
        keyID: String? = nil,
        tag: String? = nil
    ) {
        self.components = components
        self.created = created
        self.expires = expires
        self.nonce = nonce
        self.algorithm = algorithm
        self.keyID = keyID
        self.tag = tag
    }

    /// Reads a `Signature-Input` member: an inner list of component identifiers with parameters.
    init(innerList: InnerList, label: String) throws(HTTPSignatureError) {
        var components: [HTTPMessageComponent] = []
        for item in innerList.bareInnerList {
            components.append(try HTTPMessageComponent(item: item))
        }
        self.init(components: components)
        for (name, value) in innerList.rfc9651Parameters {
            switch (name, value) {
            case ("created", .integer(let seconds)): created = Date(timeIntervalSince1970: TimeInterval(seconds))
            case ("expires", .integer(let seconds)): expires = Date(timeIntervalSince1970: TimeInterval(seconds))
            case ("nonce", .string(let text)): nonce = text
            case ("alg", .string(let text)): algorithm = text
            case ("keyid", .string(let text)): keyID = text
            case ("tag", .string(let text)): tag = text
            case ("created", _), ("expires", _):
                throw .malformedField("Signature-Input", reason: "'\(label)': '\(name)' is not an integer")
            case ("nonce", _), ("alg", _), ("keyid", _), ("tag", _):
                throw .malformedField("Signature-Input", reason: "'\(label)': '\(name)' is not a string")
            default:
                // §2.3: parameters a verifier does not know are ignored, but kept in the base
                // (which is rebuilt from the field as received).
                continue
            }
        }
    }

    /// The inner list `Signature-Input` carries (and the `@signature-params` line shows).
    var innerList: InnerList {
        var items = BareInnerList()
        for component in components { items.append(component.item) }
        var parameters = OrderedMap<String, RFC9651BareItem>()
        if let created { parameters["created"] = .integer(Int64(created.timeIntervalSince1970.rounded(.down))) }
        if let expires { parameters["expires"] = .integer(Int64(expires.timeIntervalSince1970.rounded(.down))) }
        if let keyID { parameters["keyid"] = .string(keyID) }
        if let algorithm { parameters["alg"] = .string(algorithm) }
        if let nonce { parameters["nonce"] = .string(nonce) }
        if let tag { parameters["tag"] = .string(tag) }
        return InnerList(bareInnerList: items, parameters: parameters)
    }

    /// The serialized inner list: `("@method" "@path");created=…;keyid="…"`.
    public var serialized: String {
        get throws(HTTPSignatureError) { try Self.serialize(innerList) }
    }

    static func serialize(_ innerList: InnerList) throws(HTTPSignatureError) -> String {
        var serializer = StructuredFieldValueSerializer()
        do {
            return String(decoding: try serializer.writeListFieldValue([.innerList(innerList)]), as: UTF8.self)
        } catch {
            throw .invalidComponent("\(innerList)", reason: "the signature's parameters cannot be written as a structured field (a string with characters outside printable ASCII?)")
        }
    }
}
