import Foundation

/// One signature made by a signer (SecureSession's `HTTPMessageSigner`): the members it adds to the message's
/// `Signature-Input` and `Signature` fields, and the signature base it signed (for logs and
/// for comparing with a server's).
public struct HTTPMessageSignature: Sendable, Hashable {
    /// The label naming it in both fields (`sig1`).
    public let label: String
    /// What it covers and its parameters.
    public let parameters: HTTPSignatureParameters
    /// The signature base that was signed (RFC 9421 §2.5).
    public let base: String
    /// The signature's bytes.
    public let signature: Data
    /// Its `Signature-Input` member: `sig1=("@method" …);created=…;keyid="…"`.
    public let signatureInputMember: String

    /// A signature of its parts.
    package init(label: String, parameters: HTTPSignatureParameters, base: String, signature: Data, signatureInputMember: String) {
        self.label = label
        self.parameters = parameters
        self.base = base
        self.signature = signature
        self.signatureInputMember = signatureInputMember
    }

    /// Its `Signature` member: `sig1=:base64:`.
    public var signatureMember: String { "\(label)=:\(signature.base64EncodedString()):" }
}
