import Foundation

/// Credentials per protection space, shared by a session's requests (`NSURLCredentialStorage`).
/// A credential stored without a realm answers every realm of its host, port and method.
public final class CredentialStore: @unchecked Sendable {
    private let lock = NSLock()
    private var credentials: [ProtectionSpace: Credential] = [:]

    /// Creates an empty store.
    public init() {}

    /// Stores `credential` for `space`.
    public func set(_ credential: Credential, for space: ProtectionSpace) {
        lock.withLock { credentials[space] = credential }
    }

    /// Removes the credential of `space`.
    public func remove(for space: ProtectionSpace) {
        lock.withLock { credentials[space] = nil }
    }

    /// The credential for `space`: the one stored for it exactly, else one stored for its host,
    /// port and method without a realm.
    public func credential(for space: ProtectionSpace) -> Credential? {
        lock.withLock {
            credentials[space]
                ?? credentials[ProtectionSpace(host: space.host, port: space.port, isSecure: space.isSecure, realm: nil, method: space.method)]
        }
    }
}
