import SwiftASN1
import X509

/// Explains input that is not one DER certificate by its framing: text that is not PEM, bytes
/// that do not begin as a certificate does, DER cut short, or followed by more than one
/// certificate (`cat a.der b.der`, or a file with bytes appended), which swift-asn1 reports as
/// "Unable to treat 74 bytes as a UInt", a bare "truncated field" or "trailing unparsed data".
enum DERFraming {
    /// A phrase for why `bytes` are not one certificate, when `error` (from parsing them) comes
    /// from their framing; `nil` for any other error (a certificate that is whole but wrong
    /// inside keeps the parser's reason).
    static func explanation(of error: any Error, in bytes: [UInt8]) -> String? {
        guard let error = error as? ASN1Error, let firstByte = bytes.first else { return nil }
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) || [0x09, 0x0A, 0x0D].contains($0) }) {
            return "text, but neither PEM (there is no -----BEGIN line) nor DER"
        }
        guard firstByte == 0x30 else {
            let hex = String(firstByte, radix: 16, uppercase: true)
            return "not DER: a certificate begins with the byte 0x30 (a SEQUENCE), this input with 0x\(hex.count == 1 ? "0" : "")\(hex)"
        }
        if error.code == .truncatedASN1Field {
            return "truncated: the input ends inside its DER encoding, after \(bytes.count) bytes"
        }
        // swift-asn1 parsed a whole first structure and found more after it.
        guard error.code == .invalidASN1Object, String(describing: error).contains("Trailing unparsed data") else { return nil }
        guard let parts = structures(in: bytes), let first = parts.first else {
            return "more bytes, which are not DER, follow the DER structure it begins with"
        }
        let certificates = parts.filter { (try? Certificate(derEncoded: $0)) != nil }.count
        if certificates == parts.count {
            return "\(parts.count) DER certificates one after another; a DER file holds one certificate: "
                + "give each its own file, or write them as a PEM bundle"
        }
        let opening = certificates > 0 && (try? Certificate(derEncoded: first)) != nil ? "a DER certificate" : "a DER structure"
        return "\(opening) followed by \(bytes.count - first.count) more bytes that are not part of it"
    }

    /// The DER structures `bytes` hold one after another, read by swift-asn1 as the contents of
    /// a SEQUENCE wrapped around them; `nil` when they are not all whole DER structures.
    private static func structures(in bytes: [UInt8]) -> [ArraySlice<UInt8>]? {
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: .sequence) { $0.serializeRawBytes(bytes) }
        guard let wrapper = try? DER.parse(serializer.serializedBytes), case .constructed(let nodes) = wrapper.content else {
            return nil
        }
        return nodes.map(\.encodedBytes)
    }
}
