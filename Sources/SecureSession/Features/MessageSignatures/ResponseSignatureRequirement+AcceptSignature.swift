import Foundation
import HTTPMessageSignatures
import RawStructuredFieldValues

extension ResponseSignatureRequirement {
    /// The `Accept-Signature` field (RFC 9421 §5.1) that asks a server for the signature this
    /// requirement accepts: under the verifier's label (`sig1` when it names none), covering its
    /// required components and, when the body must be covered, `content-digest`; with the
    /// `keyid` and `alg` of its key when it has only one, `created` when it requires one, and
    /// its `tag`. `nil` when that cannot be written as a structured field (a tag outside
    /// printable ASCII).
    ///
    /// `sig1=("@status" "content-digest");keyid="bank-2026";alg="ecdsa-p256-sha256";created`
    public var acceptSignatureField: String? {
        var components = verifier.requiredComponents
        let digest = HTTPMessageComponent.field("content-digest")
        if requiresBodyCoverage, !components.contains(digest) { components.append(digest) }
        var items = BareInnerList()
        for component in components { items.append(component.item) }
        var parameters = OrderedMap<String, RFC9651BareItem>()
        if verifier.keys.count == 1, let key = verifier.keys.values.first {
            parameters["keyid"] = .string(key.id)
            parameters["alg"] = .string(key.algorithm.rawValue)
        }
        if verifier.requiresCreated { parameters["created"] = .bool(true) }
        if let tag = verifier.tag { parameters["tag"] = .string(tag) }
        var field = OrderedMap<String, ItemOrInnerList>()
        field[verifier.label ?? "sig1"] = .innerList(InnerList(bareInnerList: items, parameters: parameters))
        var serializer = StructuredFieldValueSerializer()
        guard let bytes = try? serializer.writeDictionaryFieldValue(field) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension SecureSession {
    /// `request` asking its server for the signature the session's response requirement accepts
    /// (``ResponseSignatureRequirement/acceptSignatureField``), when the requirement applies to
    /// its host and asks (``ResponseSignatureRequirement/asksForSignatures``), unless the request
    /// has an `Accept-Signature` of its own.
    func askingForSignature(_ request: SecureRequest) -> SecureRequest {
        guard let requirement = configuration.responses.signatures, requirement.asksForSignatures, requirement.applies(to: request.url),
            !request.headers.contains(where: { $0.name.equalsIgnoringASCIICase("Accept-Signature") }),
            let field = requirement.acceptSignatureField
        else { return request }
        var asking = request
        asking.headers.append((name: "Accept-Signature", value: field))
        return asking
    }
}
