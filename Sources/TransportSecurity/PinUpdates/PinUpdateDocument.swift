import Foundation

/// A signed pin-update document: the pins (and optionally certificates) per domain, a
/// version that only goes up, when it was issued and when it expires.
///
/// ```json
/// {"version": 7, "issuedAt": "2026-11-01T00:00:00Z", "expiresAt": "2027-02-01T00:00:00Z",
///  "domains": {"api.example.com": {"includeSubdomains": true,
///                                  "pins": ["sha256/…", "sha256/…"], "certificates": ["-----BEGIN…"]}}}
/// ```
///
/// The signature covers the document's exact bytes, so the bytes are kept as they arrived.
public struct PinUpdateDocument: Sendable, Hashable {
    /// The exact bytes that were signed.
    public let bytes: [UInt8]
    /// The version: an update is accepted only when it is higher than the current one.
    public let version: Int
    /// When the publisher issued it.
    public let issuedAt: Date
    /// After this moment the document is not used.
    public let expiresAt: Date
    /// One enforced pin set per domain: the listed pins plus the keys of the listed
    /// certificates, expiring with the document.
    public let pinSets: [DomainPinSet]

    /// Parses a document.
    /// - Throws: ``PinUpdateError/Reason/malformedDocument(_:)`` naming the field and the problem.
    public init(bytes: [UInt8]) throws(PinUpdateError) {
        self.bytes = bytes
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(bytes)) } catch {
            throw PinUpdateError(.malformedDocument("not JSON (\(DecodingErrorText.describe(error)))"))
        }
        guard let top = object as? [String: Any] else { throw PinUpdateError(.malformedDocument("not a JSON object")) }
        // JSONDecoder reports a fractional version only as "not valid JSON".
        if let number = top["version"] as? Double, number.rounded() != number {
            throw PinUpdateError(.malformedDocument("version: \(number) is not an integer"))
        }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(bytes))
        } catch {
            throw PinUpdateError(.malformedDocument(DecodingErrorText.describe(error)))
        }
        guard wire.version >= 1 else { throw PinUpdateError(.malformedDocument("version: \(wire.version) is not a positive integer")) }
        version = wire.version
        issuedAt = try Self.date(wire.issuedAt, field: "issuedAt")
        expiresAt = try Self.date(wire.expiresAt, field: "expiresAt")
        guard expiresAt > issuedAt else {
            throw PinUpdateError(.malformedDocument("expiresAt (\(wire.expiresAt)) is not after issuedAt (\(wire.issuedAt))"))
        }
        var sets: [DomainPinSet] = []
        var names: [DomainKey: String] = [:]
        for (name, domain) in wire.domains.sorted(by: { $0.key < $1.key }) {
            let set = try Self.pinSet(name, domain, expiresAt: expiresAt)
            // Keys are compared case-insensitively and without a trailing dot: two spellings of
            // one domain would leave which set applies to chance.
            if let earlier = names[set.key] {
                throw PinUpdateError(.malformedDocument("domains: '\(name)' and '\(earlier)' name the same domain \(set.key)"))
            }
            names[set.key] = name
            sets.append(set)
        }
        pinSets = sets
    }

    /// The `version` of a document's bytes (a positive integer), read without checking the rest:
    /// the version floor of a signed document this library no longer accepts (one accepted
    /// before every domain needed a backup pin). `nil` when there is none.
    static func signedVersion(of bytes: [UInt8]) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let number = object["version"] as? NSNumber, let version = Int(exactly: number.doubleValue), version >= 1
        else { return nil }
        return version
    }

    /// The pin set that covers `host`: its own, else the nearest ancestor's that includes
    /// subdomains.
    public func pinSet(forHost host: String) -> DomainPinSet? {
        var configuration = TransportSecurityConfiguration()
        configuration.pinSets = pinSets
        return configuration.pinSet(for: ServerHost(host))
    }

    // MARK: - Reading

    private struct Wire: Decodable {
        var version: Int
        var issuedAt: String
        var expiresAt: String
        var domains: [String: Domain]
    }

    private struct Domain: Decodable {
        var includeSubdomains: Bool?
        var pins: [String]?
        var certificates: [String]?
    }

    private static func pinSet(_ name: String, _ domain: Domain, expiresAt: Date) throws(PinUpdateError) -> DomainPinSet {
        let key: DomainKey
        do {
            key = try DomainKey.parse(name)
        } catch {
            throw PinUpdateError(.malformedDocument("domains: \(error)"))
        }
        guard case .dnsName = key else {
            throw PinUpdateError(.malformedDocument("domains: '\(name)' is an address or a range, not a host name"))
        }
        var pins: [SPKIPin] = []
        for (index, text) in (domain.pins ?? []).enumerated() {
            do {
                pins.append(try SPKIPin(text))
            } catch {
                throw PinUpdateError(.malformedDocument("domains.\(name).pins[\(index)]: \(error)"))
            }
        }
        for (index, pem) in (domain.certificates ?? []).enumerated() {
            do {
                pins += try CertificateLoader.certificates(from: Array(pem.utf8), source: "domains.\(name).certificates[\(index)]").map(\.spkiPin)
            } catch {
                throw PinUpdateError(.malformedDocument(String(describing: error)))
            }
        }
        guard !pins.isEmpty else { throw PinUpdateError(.malformedDocument("domains.\(name): no pins and no certificates")) }
        var unique: [SPKIPin] = []
        for pin in pins where !unique.contains(pin) { unique.append(pin) }
        guard unique.count >= DomainPinSet.minimumPins else {
            throw PinUpdateError(.malformedDocument(
                "domains.\(name): \(unique.count) distinct pin; every domain needs at least \(DomainPinSet.minimumPins) (a backup pin, so that a lost or compromised key can be replaced without locking clients out)"
            ))
        }
        var set = DomainPinSet(key: key, pins: unique)
        set.includesSubdomains = domain.includeSubdomains ?? false
        set.expirationDate = expiresAt
        return set
    }

    private static func date(_ text: String, field: String) throws(PinUpdateError) -> Date {
        guard text.hasSuffix("Z"), let date = Date(iso8601: text) else {
            throw PinUpdateError(.malformedDocument("\(field): \"\(text)\" is not an ISO 8601 UTC time such as 2027-01-31T00:00:00Z"))
        }
        return date
    }
}
