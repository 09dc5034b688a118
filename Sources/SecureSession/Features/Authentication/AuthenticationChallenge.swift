import TransportSecurity
import TransportSecurityNIO

/// A challenge put to a handler: an HTTP authentication challenge, or, when a handler
/// is set, the server trust of every new TLS connection and every server's request for a client
/// certificate.
public struct AuthenticationChallenge: Sendable {
    /// What is protected.
    public let protectionSpace: ProtectionSpace
    /// How many times a credential for this space already failed for this request.
    public let previousFailureCount: Int
    /// For a ``ProtectionSpace/Method/serverTrust`` challenge: what the server presented.
    public let serverTrust: ServerTrust?

    /// Creates a challenge.
    public init(protectionSpace: ProtectionSpace, previousFailureCount: Int, serverTrust: ServerTrust? = nil) {
        self.protectionSpace = protectionSpace
        self.previousFailureCount = previousFailureCount
        self.serverTrust = serverTrust
    }
}

/// A credential answering a challenge.
public enum Credential: Sendable, Hashable {
    /// A user name and password, for HTTP Basic and Digest.
    case user(String, password: String)
    /// Trust in the server as presented, for a server-trust challenge.
    case serverTrust
    /// A certificate and key to present, for a client-certificate challenge.
    case clientIdentity(ClientIdentity)
}

/// A handler's answer.
public enum ChallengeDisposition: Sendable {
    /// Answer with this credential (`nil`: continue without one; for server trust, `nil` refuses
    /// the server). A credential of another kind than the challenge asks for counts as none.
    case useCredential(Credential?)
    /// Do what the session does without a handler: for server trust, the default policy
    /// (system trust and hostname); for a client certificate, the session's client identity if
    /// it has one; for HTTP authentication, a stored credential if there is one for the space,
    /// else continue without (the 401 reaches the caller).
    case performDefaultHandling
    /// Fail the request with ``SecureSessionError/challengeCancelled(_:)``.
    case cancelAuthenticationChallenge
    /// Refuse this protection space. HTTP authentication: the next scheme the server offered is
    /// tried; when there is none, the 401 reaches the caller. Client certificate: no certificate
    /// is presented and the server decides. Server trust: the connection fails with
    /// ``SecureSessionError/protectionSpaceRejected(_:)``.
    case rejectProtectionSpace
}

/// Decides on a challenge; may suspend (ask a user, read a vault).
public typealias ChallengeHandler = @Sendable (AuthenticationChallenge) async -> ChallengeDisposition
