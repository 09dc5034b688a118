extension SecureSessionError {
    /// The case's name in snake case (`trust_rejected`, `timeout`): the `error` dimension of the
    /// session's metrics, few enough values to count by.
    public var kind: String {
        switch self {
        case .trustRejected: return "trust_rejected"
        case .tlsFailure: return "tls_failure"
        case .connectionFailed: return "connection_failed"
        case .proxyFailure: return "proxy_failure"
        case .timeout: return "timeout"
        case .cancelled: return "cancelled"
        case .challengeCancelled: return "challenge_cancelled"
        case .protectionSpaceRejected: return "protection_space_rejected"
        case .unacceptableStatus: return "unacceptable_status"
        case .unacceptableContentType: return "unacceptable_content_type"
        case .responseTooLarge: return "response_too_large"
        case .tooManyRedirects: return "too_many_redirects"
        case .insecureRedirect: return "insecure_redirect"
        case .redirectRefused: return "redirect_refused"
        case .invalidURL: return "invalid_url"
        case .invalidRequest: return "invalid_request"
        case .invalidResponse: return "invalid_response"
        case .undecodableResponse: return "undecodable_response"
        case .refusedByTransportRules: return "refused_by_transport_rules"
        case .sessionShutDown: return "session_shut_down"
        case .fileError: return "file_error"
        case .unreadableUpload: return "unreadable_upload"
        case .notCached: return "not_cached"
        case .responseSignatureRejected: return "response_signature_rejected"
        case .circuitOpen: return "circuit_open"
        case .rateLimited: return "rate_limited"
        }
    }
}
