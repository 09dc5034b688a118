import Foundation

/// What an authorization server publishes of itself (RFC 8414; OpenID Connect Discovery's
/// document has the same members), as far as a client of the client-credentials grant needs
/// it: where its token endpoint is (and its mutual-TLS alias, RFC 8705 §5), and which client
/// authentications and DPoP algorithms it takes.
package struct AuthorizationServerMetadata: Decodable {
    package let issuer: String?
    package let tokenEndpoint: String?
    package let mtlsEndpointAliases: Aliases?
    package let tokenEndpointAuthMethodsSupported: [String]?
    package let dpopSigningAlgValuesSupported: [String]?

    package struct Aliases: Decodable {
        let tokenEndpoint: String?

        enum CodingKeys: String, CodingKey {
            case tokenEndpoint = "token_endpoint"
        }
    }

    package enum CodingKeys: String, CodingKey {
        case issuer
        case tokenEndpoint = "token_endpoint"
        case mtlsEndpointAliases = "mtls_endpoint_aliases"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
    }

    /// Where `issuer`'s metadata may be, in the order asked: RFC 8414 §3.1's
    /// `/.well-known/oauth-authorization-server` before the issuer's path, then OpenID Connect
    /// Discovery's `/.well-known/openid-configuration` after it.
    package static func locations(of issuer: URL) -> [URL] {
        guard var parts = URLComponents(url: issuer, resolvingAgainstBaseURL: true) else { return [] }
        let path = parts.path.hasSuffix("/") ? String(parts.path.dropLast()) : parts.path
        parts.query = nil
        parts.fragment = nil
        var locations: [URL] = []
        parts.path = "/.well-known/oauth-authorization-server" + path
        if let url = parts.url { locations.append(url) }
        parts.path = path + "/.well-known/openid-configuration"
        if let url = parts.url { locations.append(url) }
        return locations
    }

    /// The token endpoint for a client authenticating with `authentication`, checked: the
    /// metadata names `issuer` exactly (RFC 8414 §3.3: metadata of another issuer would send
    /// the client's credentials to it), the endpoint is https, the server takes the client's
    /// authentication and, with `proofAlgorithm`, its DPoP algorithm, when it lists them. With
    /// mutual TLS (`tls_client_auth`, or a client certificate for certificate-bound tokens),
    /// the endpoint's mutual-TLS alias when it has one (RFC 8705 §5).
    package func tokenEndpoint(issuer: URL, location: URL, authentication: OAuthClientAuthentication, presentsCertificate: Bool, proofAlgorithm: String?) throws -> URL {
        guard self.issuer == issuer.absoluteString else {
            throw OAuthError.unusableMetadata(location, "it is the metadata of the issuer '\(self.issuer ?? "none")', not of \(issuer.absoluteString) (RFC 8414 §3.3)")
        }
        let isGrant = { if case .jwtBearerGrant = authentication { return true } else { return false } }()
        if let methods = tokenEndpointAuthMethodsSupported, !isGrant, !methods.contains("\(authentication)") {
            throw OAuthError.unusableMetadata(location, "the server takes \(methods.joined(separator: ", ")) at its token endpoint, not \(authentication)")
        }
        if let proofAlgorithm, let algorithms = dpopSigningAlgValuesSupported, !algorithms.contains(proofAlgorithm) {
            throw OAuthError.unusableMetadata(location, "the server takes DPoP proofs signed with \(algorithms.joined(separator: ", ")), not \(proofAlgorithm)")
        }
        let usesMutualTLS = presentsCertificate || { if case .mutualTLS = authentication { return true } else { return false } }()
        let alias = usesMutualTLS ? mtlsEndpointAliases?.tokenEndpoint : nil
        guard let text = alias ?? tokenEndpoint else { throw OAuthError.unusableMetadata(location, "it names no token_endpoint") }
        guard let endpoint = URL(string: text), endpoint.scheme?.lowercased() == "https", endpoint.host?.isEmpty == false else {
            throw OAuthError.unusableMetadata(location, "its token endpoint \(text) is not an https URL")
        }
        return endpoint
    }
}
