extension SecureSessionError {
    /// The failure with what the request was doing added to its detail: a connection that
    /// failed says whether the request was still waiting for the response or reading its body
    /// (and how much of it had come). Other failures name their stage already (a timeout, a TLS
    /// failure) or are about the response itself (an invalid one), and are returned as they are.
    func naming(stage: String?) -> SecureSessionError {
        guard let stage, case .connectionFailed(let detail) = reason else { return self }
        return SecureSessionError(.connectionFailed("\(detail), while \(stage)"), underlying: underlying)
    }

    /// A TLS failure of a handshake made through `proxy`, saying so: the proxy, or the server
    /// beyond it, may have closed the tunnel.
    func through(proxy: String?) -> SecureSessionError {
        guard let proxy, case .tlsFailure(let detail) = reason, !detail.contains("through the proxy") else { return self }
        return SecureSessionError(.tlsFailure("\(detail) (through the proxy \(proxy))"), underlying: underlying)
    }
}
