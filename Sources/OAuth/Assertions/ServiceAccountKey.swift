import Foundation

/// A Google Cloud service account's key: the JSON file `gcloud iam service-accounts keys create`
/// writes (`type` `service_account`, `client_email`, `private_key`, `private_key_id`,
/// `token_uri`), with which a server obtains access tokens for Google's APIs, over HTTP or
/// gRPC, by the JWT bearer grant (RFC 7523 §2.1: ``OAuthClientAuthentication/jwtBearerGrant(_:subject:)``).
/// Its description never shows the key.
public struct ServiceAccountKey: Sendable, CustomStringConvertible {
    /// The account (the grant's issuer).
    public let clientEmail: String
    /// The token endpoint (`token_uri`; https only).
    public let tokenURL: URL
    /// The key's identifier (`private_key_id`, the JWT's `kid`), when the file has one.
    public var keyID: String? { signingKey.keyID }
    /// The RSA key signing the grants, with RS256 (the algorithm Google takes).
    package let signingKey: ClientAssertionKey

    /// Reads a key file's JSON.
    /// - Parameters:
    ///   - json: The file's bytes.
    ///   - source: What to call the input in an error (its path).
    /// - Throws: ``OAuthError/unusableServiceAccountKey(_:)`` naming `source` and what is wrong:
    ///   not JSON, another `type` of credentials, a member missing, a `token_uri` that is not
    ///   https, a `private_key` that cannot sign.
    public init(json: Data, source: String = "the service account key") throws {
        func unusable(_ reason: String) -> OAuthError { .unusableServiceAccountKey("\(source): \(reason)") }
        guard let fields = try? JSONDecoder().decode(Fields.self, from: json) else { throw unusable("not a JSON object of a service account's key") }
        guard fields.type == "service_account" else { throw unusable("its type is '\(fields.type ?? "none")', not service_account") }
        guard let email = fields.clientEmail, !email.isEmpty else { throw unusable("it has no client_email") }
        guard let pem = fields.privateKey, !pem.isEmpty else { throw unusable("it has no private_key") }
        let tokenURI = fields.tokenURI ?? "https://oauth2.googleapis.com/token"
        guard let tokenURL = URL(string: tokenURI), tokenURL.scheme?.lowercased() == "https", tokenURL.host?.isEmpty == false else {
            throw unusable("its token_uri \(tokenURI) is not an https URL")
        }
        do {
            signingKey = try ClientAssertionKey(pemEncoded: pem, keyID: fields.privateKeyID, rsaAlgorithm: .rs256)
        } catch OAuthError.unusableAssertionKey(let reason) {
            throw unusable("its private_key cannot sign: \(reason)")
        }
        clientEmail = email
        self.tokenURL = tokenURL
    }

    /// Reads the key file at `path`.
    /// - Throws: ``OAuthError/unusableServiceAccountKey(_:)`` naming the file, when it cannot be
    ///   read or used.
    public init(contentsOfFile path: String) throws {
        guard let json = FileManager.default.contents(atPath: path) else {
            throw OAuthError.unusableServiceAccountKey("\(path): the file cannot be read")
        }
        try self.init(json: json, source: path)
    }

    /// `ServiceAccountKey(account, kid …)`: no key material.
    public var description: String {
        "ServiceAccountKey(\(clientEmail)\(keyID.map { ", kid \($0)" } ?? ""))"
    }

    private struct Fields: Decodable {
        let type: String?
        let clientEmail: String?
        let privateKey: String?
        let privateKeyID: String?
        let tokenURI: String?

        enum CodingKeys: String, CodingKey {
            case type
            case clientEmail = "client_email"
            case privateKey = "private_key"
            case privateKeyID = "private_key_id"
            case tokenURI = "token_uri"
        }
    }
}
