extension SecureRequest {
    /// The request as one of the OAuth client's own exchanges with the authorization server
    /// (a token request, its metadata): with an interceptor of its own, never the token
    /// session's (which may be an API session's, asking itself for a token); never answered
    /// from a cache; every status returned for the caller to read; never following a redirect
    /// to another origin (another server would be handed the client's credentials, a form body
    /// with a secret or an assertion among them, and could answer with a token of its choosing),
    /// which fails the exchange with ``SecureSessionError/redirectRefused(status:from:to:reason:)``.
    var toAuthorizationServer: SecureRequest {
        var request = self
        request.followsRedirectsToOtherOrigins = false
        request.bodyCarriesCredentials = true
        request.interceptor = RequestAdapter { request, _ in request }
        request.cachePolicy = .reloadIgnoringCacheData
        request.validation = ResponseValidation.none
        return request
    }
}
