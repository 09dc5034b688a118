import Foundation

/// The access token in use, shared by every request: fetched once when none is fresh, however
/// many requests ask at the same time (one token request in flight), and forgotten when a
/// server refuses it.
package actor AccessTokenCache {
    private let margin: Duration
    private let fetch: @Sendable () async throws -> AccessToken
    private var current: AccessToken? {
        didSet { currentWasAccepted = false }
    }
    /// Whether a server accepted the current token.
    private var currentWasAccepted = false
    private var fetching: Task<AccessToken, any Error>?

    /// A cache that gets tokens from `fetch`, and replaces one `margin` before it expires.
    package init(margin: Duration, fetch: @escaping @Sendable () async throws -> AccessToken) {
        self.margin = margin
        self.fetch = fetch
    }

    /// A token fresh for at least the margin: the current one, or a new one (awaiting the
    /// token request already in flight, if any). A failed token request fails every request
    /// awaiting it; the next one asks again.
    package func token() async throws -> AccessToken {
        if let current, !current.isExpiring(within: margin, at: .now) { return current }
        if let fetching { return try await fetching.value }
        let task = Task { try await fetch() }
        fetching = task
        defer { fetching = nil }
        let token = try await task.value
        current = token
        return token
    }

    /// Notes that a server accepted `value` (it answered other than `401`).
    package func accepted(_ value: String) {
        if current?.value == value { currentWasAccepted = true }
    }

    /// Whether a request that a server refused with `value` should be sent again with a new
    /// token: yes when `value` is no longer the current token (another request replaced it), or
    /// is the current one and servers accepted it before (it was revoked or expired early: it is
    /// forgotten); no when servers never accepted the current one (a new one would be refused
    /// too), so that a client whose tokens are all refused asks for one new token, not for one
    /// per request.
    package func refused(_ value: String) -> Bool {
        guard let current, current.value == value else { return true }
        guard currentWasAccepted else { return false }
        self.current = nil
        return true
    }
}
