import TransportSecurity
import RawStructuredFieldValues

/// The `Signature-Input` and `Signature` fields of a message, each a structured dictionary
/// keyed by signature label (its field lines combined, RFC 9421 §4).
package struct SignatureFields {
    let inputs: OrderedMap<String, ItemOrInnerList>
    let signatures: OrderedMap<String, ItemOrInnerList>

    /// The fields of `headers`; both empty when the message has neither.
    /// - Throws: ``HTTPSignatureError/malformedField(_:reason:)`` for one that is not a
    ///   dictionary.
    package init(_ headers: [(name: String, value: String)]) throws(HTTPSignatureError) {
        inputs = try Self.dictionary("Signature-Input", in: headers)
        signatures = try Self.dictionary("Signature", in: headers)
    }

    private static func dictionary(_ name: String, in headers: [(name: String, value: String)]) throws(HTTPSignatureError) -> OrderedMap<String, ItemOrInnerList> {
        let lines = headers.compactMap { $0.name.equalsIgnoringASCIICase(name) ? $0.value : nil }
        guard !lines.isEmpty else { return OrderedMap() }
        var parser = StructuredFieldValueParser(Array(lines.joined(separator: ", ").utf8))
        do {
            return try parser.parseDictionaryFieldValue()
        } catch {
            throw .malformedField(name, reason: "not a structured dictionary (RFC 8941): \(error)")
        }
    }

    /// The labels `Signature-Input` declares, in order.
    package var labels: [String] { inputs.map(\.0) }
}
