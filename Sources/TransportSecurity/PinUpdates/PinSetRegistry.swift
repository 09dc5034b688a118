import Foundation

/// The pin sets in force, and the gate that signed updates go through.
///
/// It starts with the application's built-in sets. ``loadStored()`` brings back the last
/// accepted document (its signature checked again); ``offer(document:signatureText:)`` takes a
/// new one when its signature verifies against the built-in public key, its version is higher
/// than the current and the stored one (no rollback) and it has not expired, stores it
/// atomically, then puts it in force. Anything refused leaves the current sets as they were. A
/// document that has expired stops applying: the built-in sets apply again.
///
/// `SecureSession` consults it for every new connection (`SecureSessionConfiguration.tls.pinSetRegistry`).
public final class PinSetRegistry: Sendable {
    /// Where the sets in force come from.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        /// The application's built-in sets (no good document, or it expired).
        case builtIn
        /// An accepted, signed document of this version.
        case signedDocument(version: Int)

        /// `built-in` or `signed document vN`.
        public var description: String {
            switch self {
            case .builtIn: return "built-in"
            case .signedDocument(let version): return "signed document v\(version)"
            }
        }
    }

    /// The public key documents must be signed with.
    public let publicKey: PinUpdatePublicKey
    /// The sets that apply without a good document.
    public let builtIn: [DomainPinSet]
    /// Where accepted documents are kept, if anywhere.
    public let store: PinUpdateStore?
    /// How far in the future `issuedAt` may be (clock skew between publisher and client).
    public let allowedClockSkew: TimeInterval
    private let clock: @Sendable () -> Date
    private let accepted = LockedState<PinUpdateDocument?>(nil)

    /// A registry with the built-in sets in force.
    /// - Parameters:
    ///   - publicKey: The key built into the application.
    ///   - builtIn: The sets that apply when no good document exists.
    ///   - store: Where accepted documents are kept.
    ///   - allowedClockSkew: How far in the future `issuedAt` may be (5 minutes by default).
    ///   - clock: The time (the system's by default).
    public init(
        publicKey: PinUpdatePublicKey,
        builtIn: [DomainPinSet] = [],
        store: PinUpdateStore? = nil,
        allowedClockSkew: TimeInterval = 300,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.publicKey = publicKey
        self.builtIn = builtIn
        self.store = store
        self.allowedClockSkew = allowedClockSkew
        self.clock = clock
    }

    /// The accepted document, whether or not it still applies.
    public var document: PinUpdateDocument? { accepted.withLock { $0 } }

    /// The version in force: the accepted document's, 0 for the built-in sets.
    public var version: Int { document?.version ?? 0 }

    /// Where the sets in force come from now.
    public var source: Source {
        guard let document = applicableDocument() else { return .builtIn }
        return .signedDocument(version: document.version)
    }

    /// The sets in force now.
    public var pinSets: [DomainPinSet] { applicableDocument()?.pinSets ?? builtIn }

    /// The set in force for `host`, if any.
    public func pinSet(forHost host: String) -> DomainPinSet? {
        if let document = applicableDocument() { return document.pinSet(forHost: host) }
        var configuration = TransportSecurityConfiguration()
        configuration.pinSets = builtIn
        return configuration.pinSet(for: ServerHost(host))
    }

    /// Reads the stored document and, when its signature verifies again and it is newer than the
    /// one in force, puts it in force.
    /// - Returns: The stored version, or `nil` when nothing is stored.
    /// - Throws: ``PinUpdateError`` when the stored file is corrupt, truncated, badly signed or
    ///   malformed: the sets in force stay as they were (the built-in ones at start).
    @discardableResult
    public func loadStored() throws(PinUpdateError) -> Int? {
        guard let store, let stored = try store.read() else { return nil }
        let document: PinUpdateDocument
        do {
            document = try verified(stored.document, signature: stored.signature)
        } catch {
            throw PinUpdateError(error.reason, source: store.path)
        }
        accepted.withLock { current in
            if document.version > (current?.version ?? 0) { current = document }
        }
        return document.version
    }

    /// Takes a new document: verifies the signature over its exact bytes, parses it, refuses a
    /// version that is not higher than the current one (nor than the stored one, which then
    /// applies) and an expired or future-dated document, stores it atomically, then puts it in
    /// force.
    /// - Returns: The accepted document.
    /// - Throws: ``PinUpdateError``; the sets in force are then unchanged.
    @discardableResult
    public func offer(document bytes: [UInt8], signatureText: String) throws(PinUpdateError) -> PinUpdateDocument {
        let signature = try PinUpdateSignature.decode(signatureText)
        let document = try verified(bytes, signature: signature)
        let now = clock()
        guard document.expiresAt > now else {
            throw PinUpdateError(.expired(document.expiresAt.formatted(.iso8601)))
        }
        guard document.issuedAt <= now.addingTimeInterval(allowedClockSkew) else {
            throw PinUpdateError(.issuedInTheFuture(document.issuedAt.formatted(.iso8601)))
        }
        // Checked, stored and put in force under one lock, so two offers cannot both pass the
        // version check.
        return try accepted.withLock { (current: inout PinUpdateDocument?) throws(PinUpdateError) -> PinUpdateDocument in
            // The store may hold a newer document than this registry knows (another process's,
            // or one never loaded): it counts too, or an old signed document, replayed, would
            // replace it. It then applies here as well. A store that cannot be read hides the
            // version to beat: nothing is accepted (from version 0, an old signed document
            // would pass) until the file is repaired or removed.
            // A stored document this version of the library no longer accepts (one pin for a
            // domain, accepted before a backup pin was required) still sets the floor: its
            // signature is checked and its version read.
            let stored = try storedDocument()
            if let document = stored?.document, document.version > (current?.version ?? 0) { current = document }
            let currentVersion = max(current?.version ?? 0, stored?.version ?? 0)
            guard document.version > currentVersion else {
                throw PinUpdateError(.notNewer(offered: document.version, current: currentVersion))
            }
            try store?.write(document: bytes, signature: signature)
            current = document
            return document
        }
    }

    /// The stored document's version, and the document when it is still one this library
    /// accepts; `nil` when nothing is stored.
    /// - Throws: ``PinUpdateError/Reason/corruptStore(_:)`` when the file cannot be read, is
    ///   corrupt, or holds a document whose signature no longer verifies or that has no version:
    ///   the version floor is then unknown.
    private func storedDocument() throws(PinUpdateError) -> (version: Int, document: PinUpdateDocument?)? {
        guard let store else { return nil }
        do throws(PinUpdateError) {
            guard let stored = try store.read() else { return nil }
            guard publicKey.isValidSignature(stored.signature, for: stored.document) else { throw PinUpdateError(.badSignature) }
            do throws(PinUpdateError) {
                let document = try PinUpdateDocument(bytes: stored.document)
                return (document.version, document)
            } catch {
                guard let version = PinUpdateDocument.signedVersion(of: stored.document) else { throw error }
                return (version, nil)
            }
        } catch {
            throw PinUpdateError(
                .corruptStore("\(Self.detail(of: error.reason)); the version an update must exceed is unknown, so updates are refused until the file is repaired or removed"),
                source: store.path
            )
        }
    }

    /// The text of a reason without its source.
    private static func detail(of reason: PinUpdateError.Reason) -> String {
        if case .corruptStore(let detail) = reason { return detail }
        return PinUpdateError(reason).description
    }

    /// The document when its signature verifies and it parses.
    private func verified(_ bytes: [UInt8], signature: [UInt8]) throws(PinUpdateError) -> PinUpdateDocument {
        guard publicKey.isValidSignature(signature, for: bytes) else { throw PinUpdateError(.badSignature) }
        return try PinUpdateDocument(bytes: bytes)
    }

    /// The accepted document while it has not expired.
    private func applicableDocument() -> PinUpdateDocument? {
        guard let document, document.expiresAt > clock() else { return nil }
        return document
    }
}
