/// The request fields that say who the client is: `Authorization`, `Proxy-Authorization`,
/// `Cookie`, `DPoP`, and every field whose name says it carries a key, token, secret, password,
/// session or cookie (`X-Api-Key`, `X-Auth-Token`, `X-Client-Secret`, `X-Session-Id`) or names a
/// user, tenant, account, principal or identity (`X-User-Id`, `X-Tenant`, `X-Account-Id`),
/// compared without case; `User-Agent` names software, and an idempotency key
/// (``SecureRequest/standardIdempotencyKeyFields``) a request: neither is one. The response cache keeps the responses to requests
/// carrying them apart (``ResponseCache``), a redirect to another origin does not carry them,
/// and `tsec get -v` hides their values.
package enum CredentialFields {
    /// The fields named outright.
    static let names: Set<String> = ["authorization", "proxy-authorization", "cookie", "dpop"]
    /// Fragments of the names of fields that carry credentials of their own.
    package static let nameFragments = [
        "key", "token", "secret", "password", "passwd", "auth", "session", "credential", "cookie",
        "user", "tenant", "account", "principal", "identity", "impersonat",
    ]
    /// The fields whose names have a fragment but that say nothing of who the client is.
    static let requestNames = Set(SecureRequest.standardIdempotencyKeyFields.map { $0.lowercased() } + ["user-agent"])

    /// Whether a field named `name` carries a credential.
    package static func carriesCredential(_ name: String) -> Bool {
        let lowercased = name.lowercased()
        guard !requestNames.contains(lowercased) else { return false }
        return names.contains(lowercased) || nameFragments.contains(where: lowercased.contains)
    }
}
