import ArgumentParser
import Foundation
import HTTPMessageSignatures
import SecureSession

/// `tsec get`'s HTTP message signatures (RFC 9421, `--sign-key` and its kin): every request
/// signed with a PEM private key, its body covered through `Content-Digest`.
struct MessageSigningOptions: ParsableArguments {
    @Option(name: .customLong("sign-key"), help: ArgumentHelp(
        "Sign the request with an HTTP message signature (RFC 9421) made with this private key, PEM or a JWK: Ed25519, P-256, P-384 or RSA (rsa-pss-sha512); a body is covered through Content-Digest (RFC 9530).",
        valueName: "FILE"
    ))
    var keyFile: String?

    @Option(name: .customLong("sign-key-id"), help: ArgumentHelp("The key's name at the server (the signature's keyid); a JWK's kid unless given.", valueName: "KEYID"))
    var keyID: String?

    @Option(name: .customLong("sign-component"), help: ArgumentHelp(
        "A component the signature covers: a field name (content-type) or a derived one (@method, @target-uri, @authority, @path, @query, '\"@query-param\";name=\"id\"'). Repeatable; @method and @target-uri when none is given.",
        valueName: "COMPONENT"
    ))
    var components: [String] = []

    @Option(name: .customLong("sign-label"), help: ArgumentHelp("The signature's label (sig1 by default).", valueName: "LABEL"))
    var label: String?

    @Option(name: .customLong("sign-tag"), help: ArgumentHelp("The signature's tag (the profile it is for).", valueName: "TAG"))
    var tag: String?

    @Option(name: .customLong("sign-alg"), help: ArgumentHelp("For an RSA --sign-key: rsa-pss-sha512 (the default) or rsa-v1_5-sha256.", valueName: "ALG"))
    var algorithm: String?

    @Flag(name: .customLong("sign-nonce"), help: ArgumentHelp("Put a random nonce in the signature (for servers that refuse a replay)."))
    var nonce = false

    /// Refuses signing options without `--sign-key`, an algorithm that is not RSA's, and a
    /// component that is no component identifier.
    func validate() throws {
        guard keyFile != nil else {
            guard keyID == nil, components.isEmpty, label == nil, tag == nil, algorithm == nil, !nonce else {
                throw ValidationError("--sign-key-id, --sign-component, --sign-label, --sign-tag, --sign-alg and --sign-nonce go with --sign-key")
            }
            return
        }
        _ = try SignatureArguments.rsaAlgorithm(algorithm, option: "--sign-alg")
        _ = try SignatureArguments.components(components, option: "--sign-component")
    }

    /// The signer the options ask for, or `nil` without `--sign-key`: a JWK (a JSON object) or a
    /// PEM key, which needs `--sign-key-id`.
    func makeSigner() throws -> HTTPMessageSigner? {
        guard let keyFile else { return nil }
        let contents = try ArgumentFile.read(keyFile, as: "the signature key")
        let rsaAlgorithm = try SignatureArguments.rsaAlgorithm(algorithm, option: "--sign-alg")
        let key: HTTPSignatureKey
        do {
            if SignatureArguments.isJSON(contents) {
                key = try HTTPSignatureKey(jwk: contents, id: keyID, rsaAlgorithm: rsaAlgorithm)
            } else {
                guard let keyID else { throw ValidationError("--sign-key needs --sign-key-id (the keyid the server knows the key by)") }
                key = try HTTPSignatureKey(id: keyID, pemEncoded: String(decoding: contents, as: UTF8.self), rsaAlgorithm: rsaAlgorithm)
            }
        } catch let error as HTTPSignatureError {
            throw ValidationError("\(keyFile): \(error)")
        }
        let covered = try SignatureArguments.components(components, option: "--sign-component")
        return HTTPMessageSigner(
            key: key,
            covering: covered.isEmpty ? HTTPMessageSigner.defaultComponents : covered,
            label: label ?? "sig1",
            includesNonce: nonce,
            tag: tag
        )
    }
}
