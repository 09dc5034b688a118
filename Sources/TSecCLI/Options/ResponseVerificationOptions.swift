import ArgumentParser
import Foundation
import HTTPMessageSignatures
import SecureSession

/// `tsec get`'s `--verify-response-key` and its kin: the response accepted only with an HTTP
/// message signature (RFC 9421) made by the server's key, over its body.
struct ResponseVerificationOptions: ParsableArguments {
    @Option(name: .customLong("verify-response-key"), help: ArgumentHelp(
        "Accept the response only with an HTTP message signature (RFC 9421) by this key that verifies and covers its body (Content-Digest, RFC 9530): a PEM public key or certificate, a JWK or a JWK set. A response refused so is not printed (its body is held and checked first), nor is an -o file put in place; exit 1. Not with --compressed (the digest is of the body as sent) or -C.",
        valueName: "FILE"
    ))
    var keyFile: String?

    @Option(name: .customLong("verify-response-key-id"), help: ArgumentHelp("The keyid of a PEM --verify-response-key (a JWK names itself).", valueName: "KEYID"))
    var keyID: String?

    @Option(name: .customLong("verify-response-component"), help: ArgumentHelp(
        "A component the response's signature must cover besides @status and content-digest (a field name, or one of the request's with ;req: '\"@method\";req'). Repeatable.",
        valueName: "COMPONENT"
    ))
    var components: [String] = []

    @Option(name: .customLong("verify-response-alg"), help: ArgumentHelp("For an RSA --verify-response-key without alg: rsa-pss-sha512 (the default) or rsa-v1_5-sha256.", valueName: "ALG"))
    var algorithm: String?

    /// Whether responses are verified.
    var isRequested: Bool { keyFile != nil }

    /// Refuses the other options without `--verify-response-key`, an algorithm that is not RSA's
    /// and a component that is no component identifier.
    func validate() throws {
        guard keyFile != nil else {
            guard keyID == nil, components.isEmpty, algorithm == nil else {
                throw ValidationError("--verify-response-key-id, --verify-response-component and --verify-response-alg go with --verify-response-key")
            }
            return
        }
        _ = try SignatureArguments.rsaAlgorithm(algorithm, option: "--verify-response-alg")
        _ = try SignatureArguments.components(components, option: "--verify-response-component")
    }

    /// The requirement the options make, or `nil` without `--verify-response-key`: every host's
    /// responses signed, covering `@status`, the body and the components named, judged at the
    /// real time (`--at` is the certificates' time; a signature is made now).
    func makeRequirement() throws -> ResponseSignatureRequirement? {
        guard let keyFile else { return nil }
        let keys = try SignatureArguments.verificationKeys(
            file: keyFile, keyID: keyID, algorithm: algorithm, algorithmOption: "--verify-response-alg", keyIDOption: "--verify-response-key-id"
        )
        let required = [HTTPMessageComponent.status] + (try SignatureArguments.components(components, option: "--verify-response-component"))
        let verifier = HTTPMessageSignatureVerifier(keys: keys, requiredComponents: required)
        return ResponseSignatureRequirement(verifier: verifier)
    }
}
