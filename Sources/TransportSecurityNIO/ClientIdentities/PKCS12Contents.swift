import SwiftASN1

/// Looks into PKCS#12 data, without decrypting anything, for where its private key is.
///
/// swift-nio-ssl 2.37 ends the process (`fatalError`) when BoringSSL parses a PKCS#12 that holds
/// no private key, so the key's presence must be known before the data is handed over. The
/// structure (RFC 7292) is read with swift-asn1: `PFX → authSafe (data) → AuthenticatedSafe →
/// ContentInfo (data | encryptedData | envelopedData) → SafeContents → SafeBag`. Key bags sit,
/// in every common export (OpenSSL, Windows, macOS, Java), in a plain `data` container as a
/// shrouded (encrypted) key bag, which is visible without the passphrase.
package enum PKCS12Contents {
    enum KeyPresence: Equatable {
        /// A key bag is visible.
        case present
        /// Everything is visible and there is no key bag.
        case absent
        /// No key bag is visible, but some containers are encrypted: no key, or a hidden one.
        case hiddenInEncryptedContainer
        /// The bytes are not PKCS#12.
        case notPKCS12(String)
    }

    private static let dataType: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    private static let keyBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 1]
    private static let shroudedKeyBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 2]
    private static let safeContentsBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 6]
    private static let explicitZero = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    private struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// Whether `bytes` are PKCS#12 data (a PFX), whatever they hold.
    package static func isPKCS12(_ bytes: [UInt8]) -> Bool {
        if case .notPKCS12 = privateKeyPresence(in: bytes) { return false }
        return true
    }

    static func privateKeyPresence(in bytes: [UInt8]) -> KeyPresence {
        do {
            let pfx = try BER.parse(bytes)
            let fields = try children(of: pfx, named: "PFX")
            guard fields.count >= 2, fields[0].identifier == .integer else {
                throw Malformed(description: "the PFX has no version and authSafe")
            }
            var sawEncryptedContainer = false
            let authenticatedSafe = try BER.parse(try dataContent(of: fields[1]))
            for contentInfo in try children(of: authenticatedSafe, named: "AuthenticatedSafe") {
                let (type, _) = try contentInfoParts(contentInfo)
                guard type == dataType else {
                    sawEncryptedContainer = true
                    continue
                }
                if try containsKeyBag(safeContents: BER.parse(dataContent(of: contentInfo)), depth: 0) {
                    return .present
                }
            }
            return sawEncryptedContainer ? .hiddenInEncryptedContainer : .absent
        } catch {
            return .notPKCS12(String(describing: error))
        }
    }

    private static func containsKeyBag(safeContents: ASN1Node, depth: Int) throws -> Bool {
        guard depth < 4 else { throw Malformed(description: "safe contents nest too deeply") }
        for bag in try children(of: safeContents, named: "SafeContents") {
            let parts = try children(of: bag, named: "SafeBag")
            guard let first = parts.first, parts.count >= 2 else { throw Malformed(description: "a SafeBag is incomplete") }
            let bagType = try ASN1ObjectIdentifier(berEncoded: first)
            if bagType == keyBag || bagType == shroudedKeyBag { return true }
            if bagType == safeContentsBag, let nested = try children(of: parts[1], named: "bagValue").first,
                try containsKeyBag(safeContents: nested, depth: depth + 1)
            {
                return true
            }
        }
        return false
    }

    /// `ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT ANY OPTIONAL }`.
    private static func contentInfoParts(_ node: ASN1Node) throws -> (ASN1ObjectIdentifier, ASN1Node?) {
        let parts = try children(of: node, named: "ContentInfo")
        guard let first = parts.first else { throw Malformed(description: "a ContentInfo is empty") }
        let type = try ASN1ObjectIdentifier(berEncoded: first)
        guard parts.count > 1 else { return (type, nil) }
        guard parts[1].identifier == explicitZero else { throw Malformed(description: "a ContentInfo's content is not [0]") }
        return (type, try children(of: parts[1], named: "content").first)
    }

    /// The bytes of a `data` ContentInfo's OCTET STRING (primitive, or constructed in BER).
    private static func dataContent(of contentInfo: ASN1Node) throws -> [UInt8] {
        let (type, content) = try contentInfoParts(contentInfo)
        guard type == dataType, let content else { throw Malformed(description: "expected a data ContentInfo") }
        return try octets(of: content)
    }

    private static func octets(of node: ASN1Node) throws -> [UInt8] {
        guard node.identifier == .octetString else { throw Malformed(description: "expected an OCTET STRING") }
        switch node.content {
        case .primitive(let bytes): return Array(bytes)
        case .constructed(let parts): return try parts.flatMap { try octets(of: $0) }
        }
    }

    private static func children(of node: ASN1Node, named name: String) throws -> [ASN1Node] {
        guard case .constructed(let nodes) = node.content else { throw Malformed(description: "\(name) is not constructed") }
        return Array(nodes)
    }
}
