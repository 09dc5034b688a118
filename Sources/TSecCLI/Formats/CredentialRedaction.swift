import SecureSession

/// Header values `tsec get -v` shows with their secrets hidden: no message of this tool shows a
/// password, a token, a key or a cookie.
enum CredentialRedaction {
    /// The authentication schemes shown: IANA's HTTP Authentication Scheme Registry, AWS's and
    /// NTLM, and GitHub's `token`.
    static let knownSchemes: Set<String> = [
        "basic", "bearer", "concealed", "digest", "dpop", "gnap", "hoba", "mutual", "negotiate", "oauth", "privatetoken",
        "scram-sha-1", "scram-sha-256", "vapid", "aws4-hmac-sha256", "ntlm", "token",
    ]

    /// `value` as `-v` shows it for the field `name`: `Authorization` and `Proxy-Authorization`
    /// keep their scheme when it is a known one (else they are hidden whole); `Cookie` and
    /// `Set-Cookie` their cookie names (and `Set-Cookie` its attributes); a DPoP proof and any
    /// field that says who the client is (`CredentialFields`: a key, token, secret, password,
    /// session or cookie, a user, tenant or account) are hidden whole; everything else is shown
    /// as it is.
    static func shown(name: String, value: String) -> String {
        let lowercased = name.lowercased()
        switch lowercased {
        case "authorization", "proxy-authorization":
            // A scheme everybody knows is shown; anything else may be the secret itself (a bare
            // API key), hidden whole.
            let scheme = value.prefix { $0 != " " }
            return knownSchemes.contains(scheme.lowercased()) && scheme.count < value.count ? "\(scheme) [hidden]" : "[hidden]"
        case "cookie":
            return value.split(separator: ";", omittingEmptySubsequences: false).map { pair in
                let name = pair.prefix { $0 != "=" }
                return pair.contains("=") ? "\(name)=[hidden]" : String(pair)
            }.joined(separator: ";")
        case "set-cookie":
            let pair = value.prefix { $0 != ";" }
            let attributes = value.dropFirst(pair.count)
            return pair.contains("=") ? "\(pair.prefix { $0 != "=" })=[hidden]\(attributes)" : value
        case "dpop":
            return "[hidden]"
        default:
            return CredentialFields.carriesCredential(lowercased) ? "[hidden]" : value
        }
    }
}
