import Foundation
import FuzzDriver
import HTTPMessageSignatures
import SecureSession

private let created = Date(timeIntervalSince1970: 1_618_884_473)
private let key = try! HTTPSignatureKey(id: "fuzz-key", sharedSecret: Data((0..<32).map { UInt8($0) }))
private let verifier = HTTPMessageSignatureVerifier(keys: [key.verificationKey], maximumAge: nil, requiresCreated: false, clock: { created })

/// The input as a JWK and a JWK set (when it begins with `{`), and as a request in text: the first line its path and query, then `Name: value` field lines (those
/// named `x-cover` name components to sign). Verifying never crashes and gives the same answer
/// twice; a component that parses reads back the same from its description; and whatever the
/// signer signs in a message without signature fields, the verifier accepts over the same base.
func fuzzMessageSignatures(_ input: UnsafeRawBufferPointer) {
    fuzzJSONWebKeys(Data(input))
    let text = String(decoding: input, as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let target = lines.first, target.hasPrefix("/"), let url = URL(string: "https://example.com" + target) else { return }
    let fields: [(name: String, value: String)] = lines.dropFirst().compactMap { line in
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }
    let message = HTTPSignatureMessage.request(method: "POST", url: url, headers: fields, body: Data(text.utf8))
    let first = Result { try verifier.verify(message) }.map(\.base)
    let second = Result { try verifier.verify(message) }.map(\.base)
    precondition("\(first)" == "\(second)", "two verifications of one message differ")

    var components: [HTTPMessageComponent] = []
    for field in fields where field.name.lowercased() == "x-cover" {
        guard let component = try? HTTPMessageComponent(parsing: field.value) else { continue }
        precondition((try? HTTPMessageComponent(parsing: component.description)) == component, "a component that does not read back: \(component)")
        components.append(component)
    }
    guard !fields.contains(where: { ["signature", "signature-input"].contains($0.name.lowercased()) }) else { return }
    let signer = HTTPMessageSigner(key: key, covering: components, label: "fuzz", lifetime: nil, clock: { created })
    guard let signature = try? signer.signature(for: message) else { return }
    let signed = HTTPSignatureMessage.request(
        method: "POST", url: url,
        headers: fields + [("Signature-Input", signature.signatureInputMember), ("Signature", signature.signatureMember)],
        body: Data(text.utf8)
    )
    do {
        let verified = try verifier.verify(signed)
        precondition(verified.base == signature.base, "the verifier rebuilt another base than the signer's")
    } catch {
        // A covered Content-Digest that does not match the body, or is no digest, is the one
        // refusal allowed.
        switch error {
        case .contentDigestMismatch, .malformedField("Content-Digest", _): break
        default: preconditionFailure("a signature the signer made is refused: \(error)")
        }
    }
}

/// The input as a JWK and a JWK set: a private key read from it has the public key read from
/// it (same id, same algorithm); a set's keys have distinct ids.
private func fuzzJSONWebKeys(_ data: Data) {
    guard data.first == UInt8(ascii: "{") else { return }
    let privateKey = try? HTTPSignatureKey(jwk: data, id: "fuzz")
    let publicKey = try? HTTPSignatureVerificationKey(jwk: data, id: "fuzz")
    if let privateKey {
        precondition(publicKey?.algorithm == privateKey.algorithm && publicKey?.id == privateKey.verificationKey.id, "a private JWK whose public part reads otherwise")
    }
    if let keys = try? HTTPSignatureVerificationKey.keys(jwkSet: data) {
        precondition(Set(keys.map(\.id)).count == keys.count, "a set with two keys of one kid")
    }
}

@main
enum FuzzMessageSignaturesMain {
    static func main() { runFuzzer(fuzzMessageSignatures) }
}
