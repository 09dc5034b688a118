import Foundation
import NIOHTTP1

/// Answers the HTTP authentication challenges (401 with `WWW-Authenticate`) of one request, by
/// Who answers a challenge: the request's handler, else the session's, else the built-in behaviour (a stored
/// credential for the protection space, else none, and the 401 reaches the caller).
struct HTTPAuthentication {
    let configuration: SecureSessionConfiguration
    /// Credentials that failed, per protection space.
    private var failures: [ProtectionSpace: Int] = [:]
    /// The space answered last, whose credential failed if another 401 comes.
    private var lastAnswered: ProtectionSpace?
    /// At most this many credentials are tried for one request.
    private let maximumAttempts = 3
    private var attempts = 0

    init(configuration: SecureSessionConfiguration) { self.configuration = configuration }

    /// The request to send again, with an `Authorization` field; `nil` when the challenge is left
    /// unanswered.
    /// - Throws: ``SecureSessionError/challengeCancelled(_:)`` when a handler cancels,
    ///   ``SecureSessionError/invalidRequest(_:)`` when the credential cannot be sent.
    mutating func answer(_ head: HTTPResponseHead, to request: SecureRequest, key: ConnectionKey) async throws -> SecureRequest? {
        let challenges = AuthenticateHeader.parse(head.headers["WWW-Authenticate"])
        if let lastAnswered {
            // `stale=true` (RFC 7616 §3.3): the nonce expired, the credential did not fail; it
            // answers the fresh nonce as if asked the first time.
            let isStale = lastAnswered.method == .httpDigest && challenges.contains {
                $0.scheme == "digest" && $0.parameters["realm"] == lastAnswered.realm && $0.parameters["stale"]?.lowercased() == "true"
            }
            if !isStale { failures[lastAnswered, default: 0] += 1 }
        }
        guard attempts < maximumAttempts else { return nil }
        // The challenges this session can answer, the strongest first: Digest with SHA-256, then
        // with MD5, then Basic (RFC 7616 §3.7: servers may offer several); one it cannot answer
        // (SHA-512-256, qop=auth-int only) is passed over rather than ending the answer.
        let offered = challenges
            .compactMap { challenge -> (AuthenticateHeader, strength: Int)? in
                switch challenge.scheme {
                case "basic": return (challenge, 0)
                case "digest": return DigestAuthorization.algorithm(answering: challenge).map { (challenge, $0.strength) }
                default: return nil
                }
            }
            .enumerated()
            .sorted { ($0.element.strength, -$0.offset) > ($1.element.strength, -$1.offset) }
            .map(\.element.0)
        for challenge in offered {
            let space = ProtectionSpace(
                host: key.host,
                port: key.port,
                isSecure: key.isSecure,
                realm: challenge.parameters["realm"],
                method: challenge.scheme == "digest" ? .httpDigest : .httpBasic
            )
            let question = AuthenticationChallenge(protectionSpace: space, previousFailureCount: failures[space, default: 0])
            let disposition = await (request.challengeHandler ?? configuration.features.challengeHandler)?(question) ?? .performDefaultHandling
            let credential: Credential?
            switch disposition {
            case .useCredential(let given):
                credential = given
            case .performDefaultHandling:
                // A stored credential (else the URL's user and password) that already failed is
                // not sent again.
                credential = question.previousFailureCount == 0
                    ? configuration.features.credentialStore.credential(for: space) ?? request.url.userCredential : nil
            case .cancelAuthenticationChallenge:
                throw SecureSessionError.challengeCancelled(space)
            case .rejectProtectionSpace:
                continue
            }
            guard case .user(let user, let password) = credential,
                let authorization = try Self.authorization(for: challenge, user: user, password: password, request: request, space: space)
            else {
                return nil
            }
            attempts += 1
            lastAnswered = space
            var next = request
            next.headers.removeAll { $0.name.lowercased() == "authorization" }
            next.headers.append(("Authorization", authorization))
            return next
        }
        return nil
    }

    /// The `Authorization` value answering `challenge`, or `nil` when it cannot be answered. A
    /// challenge with `charset="UTF-8"` (RFC 7617 §2.1, RFC 7616 §4) gets the user name and
    /// password in Unicode Normalization Form C, as the server stored them: `ü` typed as `u` and
    /// a combining diaeresis is the same name.
    /// - Throws: ``SecureSessionError/invalidRequest(_:)`` for a Basic user name with a colon,
    ///   which the server would split at (RFC 7617 §2: the part after it would be taken for the
    ///   password's beginning).
    static func authorization(for challenge: AuthenticateHeader, user: String, password: String, request: SecureRequest, space: ProtectionSpace) throws -> String? {
        var user = user
        var password = password
        if challenge.parameters["charset"]?.lowercased() == "utf-8" {
            user = user.precomposedStringWithCanonicalMapping
            password = password.precomposedStringWithCanonicalMapping
        }
        switch challenge.scheme {
        case "basic":
            if user.unicodeScalars.contains(":") {
                throw SecureSessionError.invalidRequest(
                    "the user name for \(space) contains a colon, which Basic authentication cannot carry (RFC 7617 §2): the server would read the name only up to it"
                )
            }
            return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        case "digest":
            return DigestAuthorization.value(
                for: challenge,
                user: user,
                password: password,
                method: request.method.rawValue,
                uri: request.requestTarget
            )
        default:
            return nil
        }
    }
}
