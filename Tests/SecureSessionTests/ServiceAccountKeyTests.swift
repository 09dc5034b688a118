import CryptoExtras
import Foundation
@testable import OAuth
import Testing

@testable import SecureSession

/// Service account key files (Google's JSON): what is read, and each way one cannot be used,
/// with the file named.
@Suite("OAuth service account keys")
struct ServiceAccountKeyTests {
    let privateKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048).pkcs8PEMRepresentation

    func json(_ fields: [String: String]) throws -> Data {
        try JSONSerialization.data(withJSONObject: fields)
    }

    var complete: [String: String] {
        ["type": "service_account", "client_email": "svc@p.iam.gserviceaccount.com", "private_key": privateKey, "private_key_id": "abc"]
    }

    @Test("read: the account, Google's token endpoint when the file names none, the kid; a grant's claims and its RS256 signature")
    func read() throws {
        let key = try ServiceAccountKey(json: json(complete), source: "svc.json")
        #expect(key.clientEmail == "svc@p.iam.gserviceaccount.com" && key.keyID == "abc")
        #expect(key.tokenURL.absoluteString == "https://oauth2.googleapis.com/token")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let grant = try JWTBearerGrant.make(account: key, subject: nil, scopes: ["a", "b"], audience: key.tokenURL, at: now)
        let parts = grant.split(separator: ".")
        let header = try JWTPart.json(parts[0])
        #expect(header["alg"] as? String == "RS256" && header["kid"] as? String == "abc")
        let claims = try JWTPart.json(parts[1])
        #expect(claims["iss"] as? String == "svc@p.iam.gserviceaccount.com" && claims["scope"] as? String == "a b" && claims["sub"] == nil)
        #expect(claims["iat"] as? Int == 1_800_000_000 && claims["exp"] as? Int == 1_800_003_600)
        let publicKey = try _RSA.Signing.PrivateKey(pemRepresentation: privateKey).publicKey
        let signature = _RSA.Signing.RSASignature(rawRepresentation: try JWTPart.decoded(parts[2]))
        #expect(publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8), padding: .insecurePKCS1v1_5))
    }

    @Test("refused, naming the file and the reason: not JSON, another type of credentials, no client_email, no private_key, an http token_uri, a key that cannot sign, a file that cannot be read")
    func unusable() throws {
        func reason(_ json: Data) -> String {
            do {
                _ = try ServiceAccountKey(json: json, source: "svc.json")
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        var fields = complete
        #expect(reason(Data("{not json".utf8)) == "the service account key cannot be used: svc.json: not a JSON object of a service account's key")
        fields["type"] = "authorized_user"
        #expect(reason(try json(fields)).hasSuffix("svc.json: its type is 'authorized_user', not service_account"))
        fields = complete
        fields["client_email"] = nil
        #expect(reason(try json(fields)).hasSuffix("it has no client_email"))
        fields = complete
        fields["private_key"] = nil
        #expect(reason(try json(fields)).hasSuffix("it has no private_key"))
        fields = complete
        fields["token_uri"] = "http://oauth2.example/token"
        #expect(reason(try json(fields)).hasSuffix("its token_uri http://oauth2.example/token is not an https URL"))
        fields = complete
        fields["private_key"] = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
        #expect(reason(try json(fields)).hasSuffix("its private_key cannot sign: not a PEM P-256, P-384 or RSA private key"))
        #expect(throws: OAuthError.self) { try ServiceAccountKey(contentsOfFile: "/nonexistent/svc.json") }
        #expect(!"\(try ServiceAccountKey(json: json(complete)))".contains("PRIVATE"))
    }
}
