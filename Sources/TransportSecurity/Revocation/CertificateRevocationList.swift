import Foundation
import SwiftASN1
import X509

/// An X.509 certificate revocation list (RFC 5280 §5): who issued it, when it was made and when
/// the next one is due, and the serial numbers it revokes. Read from DER or PEM (`X509 CRL`);
/// its signature is checked against the issuer's certificate before it is used.
public struct CertificateRevocationList: Sendable, Hashable {
    /// The DER bytes, as received.
    public let derBytes: [UInt8]
    /// The issuer's name.
    public let issuer: DistinguishedName
    /// When the list was issued.
    public let thisUpdate: Date
    /// When the next list is due; a list used after this moment is stale.
    public let nextUpdate: Date?
    /// Revoked serial numbers and when each was revoked.
    public let revoked: [Certificate.SerialNumber: Date]
    /// The list's scope, when it covers only some of its issuer's certificates (RFC 5280
    /// §5.2.5); `nil` for a complete list.
    public let issuingDistributionPoint: IssuingDistributionPoint?
    /// Critical extensions this library does not process (delta CRL indicators, critical
    /// extensions of an entry such as `certificateIssuer`…): a list that has any is not used.
    public let unsupportedCriticalExtensions: [String]
    /// What the list breaks of RFC 5280 §5.2.3: no CRL number (every CRL must carry one), or a
    /// CRL number marked critical (it must not be). A list that breaks any is not used.
    public let nonConformities: [String]
    private let tbsBytes: [UInt8]
    private let signatureAlgorithmOID: ASN1ObjectIdentifier
    private let signature: [UInt8]

    /// The `X509 CRL` PEM label.
    public static let pemLabel = "X509 CRL"

    /// Reads a CRL from DER, or from PEM (`-----BEGIN X509 CRL-----`).
    /// - Throws: ``RevocationError`` naming `source` and what is malformed.
    public init(bytes: [UInt8], source: String? = nil) throws(RevocationError) {
        var der = bytes
        if let text = String(bytes: bytes, encoding: .utf8), text.contains("-----BEGIN \(Self.pemLabel)-----") {
            guard let document = try? PEMDocument(pemString: text), document.discriminator == Self.pemLabel else {
                throw RevocationError("malformed PEM CRL", source: source)
            }
            der = document.derBytes
        }
        do {
            try self.init(der: der)
        } catch let error as RevocationError {
            throw RevocationError(error.detail, source: source)
        } catch {
            throw RevocationError("not a certificate revocation list (\(error))", source: source)
        }
    }

    /// Reads a CRL file (DER or PEM).
    /// - Throws: ``RevocationError`` naming the file when it cannot be read or is not a CRL.
    public init(contentsOfFile path: String) throws(RevocationError) {
        let data: Data
        do {
            data = try InputFile.read(path)
        } catch {
            throw RevocationError("cannot read the file: \(error)", source: path)
        }
        try self.init(bytes: Array(data), source: path)
    }

    /// Every CRL of a file: the one CRL of a DER file, or every `X509 CRL` block of a PEM file
    /// (other blocks, such as certificates, are passed over), as OpenSSL and curl read
    /// `--crlfile`.
    /// - Throws: ``RevocationError`` naming the file, and the block (`CRL #2`) that is malformed;
    ///   a PEM file without a CRL block is an error too.
    public static func lists(contentsOfFile path: String) throws(RevocationError) -> [CertificateRevocationList] {
        let data: Data
        do {
            data = try InputFile.read(path)
        } catch {
            throw RevocationError("cannot read the file: \(error)", source: path)
        }
        guard let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN ") else {
            return [try CertificateRevocationList(bytes: Array(data), source: path)]
        }
        let blocks: [PEMBlockScanner.Block]
        do {
            blocks = try PEMBlockScanner.blocks(in: text, source: path).filter { $0.type == pemLabel }
        } catch {
            guard case .malformedPEM(let why) = error.reason else { throw RevocationError("\(error)", source: path) }
            throw RevocationError("malformed PEM: \(why)", source: path)
        }
        guard !blocks.isEmpty else { throw RevocationError("no \(pemLabel) block in this PEM file", source: path) }
        var lists: [CertificateRevocationList] = []
        for (index, block) in blocks.enumerated() {
            do {
                lists.append(try CertificateRevocationList(bytes: Array(block.text.utf8)))
            } catch {
                throw RevocationError("CRL #\(index + 1) of the file: \(error.detail)", source: path)
            }
        }
        return lists
    }

    private init(der: [UInt8]) throws {
        derBytes = der
        let root = try DER.parse(der)
        guard case .constructed(let outer) = root.content else { throw RevocationError("not a SEQUENCE") }
        var parts = outer.makeIterator()
        guard let tbs = parts.next(), let algorithm = parts.next(), let signatureNode = parts.next(), parts.next() == nil else {
            throw RevocationError("a CertificateList has three parts")
        }
        tbsBytes = Array(tbs.encodedBytes)
        signatureAlgorithmOID = try Self.algorithmOID(algorithm)
        signature = Array(try ASN1BitString(derEncoded: signatureNode).bytes)

        guard case .constructed(let fields) = tbs.content else { throw RevocationError("the TBSCertList is not a SEQUENCE") }
        var iterator = fields.makeIterator()
        var field = iterator.next()
        if let version = field, version.identifier == .integer {
            guard try Int(derEncoded: version) == 1 else { throw RevocationError("only version 2 CRLs are read") }
            field = iterator.next()
        }
        guard let innerAlgorithm = field, try Self.algorithmOID(innerAlgorithm) == signatureAlgorithmOID else {
            throw RevocationError("the signature algorithms inside and outside the TBSCertList differ")
        }
        guard let issuerNode = iterator.next() else { throw RevocationError("no issuer") }
        issuer = try DistinguishedName(derEncoded: issuerNode)
        guard let thisUpdateNode = iterator.next(), X509Time.isTime(thisUpdateNode) else { throw RevocationError("no thisUpdate") }
        thisUpdate = try X509Time.date(thisUpdateNode)
        field = iterator.next()
        var next: Date?
        if let node = field, X509Time.isTime(node) {
            next = try X509Time.date(node)
            field = iterator.next()
        }
        nextUpdate = next
        var revoked: [Certificate.SerialNumber: Date] = [:]
        var unsupported: [String] = []
        if let list = field, list.identifier == .sequence {
            guard case .constructed(let entries) = list.content else { throw RevocationError("malformed revokedCertificates") }
            for entry in entries {
                guard case .constructed(let entryFields) = entry.content else { throw RevocationError("malformed revoked entry") }
                var entryParts = entryFields.makeIterator()
                guard let serial = entryParts.next(), let date = entryParts.next() else { throw RevocationError("a revoked entry needs a serial number and a date") }
                let serialBytes = try ArraySlice<UInt8>(derEncoded: serial)
                revoked[Certificate.SerialNumber(bytes: serialBytes)] = try X509Time.date(date)
                if let entryExtensions = entryParts.next() {
                    // RFC 5280 §5.3: a list with a critical entry extension the reader cannot
                    // process (certificateIssuer, in indirect lists) is not used at all.
                    guard case .constructed(let nodes) = entryExtensions.content, entryParts.next() == nil else {
                        throw RevocationError("malformed revoked entry")
                    }
                    for node in nodes {
                        let entryExtension = try Certificate.Extension(derEncoded: node)
                        let name = "\(entryExtension.oid) (in the entry of serial number \(Certificate.SerialNumber(bytes: serialBytes)))"
                        if entryExtension.critical, !unsupported.contains(name) { unsupported.append(name) }
                    }
                }
            }
            field = iterator.next()
        }
        self.revoked = revoked
        var crlNumber: Certificate.Extension?
        var scope: IssuingDistributionPoint?
        if let extensionsNode = field {
            guard extensionsNode.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
                case .constructed(let wrapped) = extensionsNode.content, let list = wrapped.first(where: { _ in true }),
                case .constructed(let extensions) = list.content
            else { throw RevocationError("malformed crlExtensions") }
            for node in extensions {
                let crlExtension = try Certificate.Extension(derEncoded: node)
                if crlExtension.oid == Self.crlNumberOID { crlNumber = crlExtension }
                if crlExtension.oid == IssuingDistributionPoint.oid {
                    guard scope == nil else { throw RevocationError("two issuing distribution points") }
                    scope = try IssuingDistributionPoint(derEncoded: crlExtension.value)
                }
                // CRL number (2.5.29.20) and authority key identifier (2.5.29.35) are informative;
                // the issuing distribution point (2.5.29.28) is checked against each certificate.
                if crlExtension.critical, ![Self.crlNumberOID, [2, 5, 29, 35], IssuingDistributionPoint.oid].contains(crlExtension.oid) {
                    unsupported.append(crlExtension.oid.description)
                }
            }
            field = iterator.next()
        }
        guard field == nil else { throw RevocationError("unexpected fields after the extensions") }
        issuingDistributionPoint = scope
        unsupportedCriticalExtensions = unsupported
        switch crlNumber {
        case nil: nonConformities = ["it has no CRL number (RFC 5280 §5.2.3 requires one)"]
        case let number? where number.critical: nonConformities = ["its CRL number is marked critical (RFC 5280 §5.2.3: non-critical)"]
        default: nonConformities = []
        }
    }

    /// The CRL number extension's identifier, 2.5.29.20.
    static let crlNumberOID: ASN1ObjectIdentifier = [2, 5, 29, 20]

    /// Whether `issuer` signed this list (its subject is the list's issuer and the signature
    /// verifies with its key).
    public func isSigned(by issuer: Certificate) -> Bool {
        guard issuer.subject == self.issuer, let algorithm = Self.signatureAlgorithm(signatureAlgorithmOID) else { return false }
        return issuer.publicKey.isValidSignature(signature, for: tbsBytes, signatureAlgorithm: algorithm)
    }

    /// When `serialNumber` was revoked, or `nil` when it is not on the list.
    public func revocationDate(of serialNumber: Certificate.SerialNumber) -> Date? { revoked[serialNumber] }

    /// Whether the list may be relied on at `time`: issued by then, and not past `nextUpdate`.
    public func isCurrent(at time: Date) -> Bool {
        thisUpdate <= time && (nextUpdate.map { time <= $0 } ?? true)
    }

    private static func algorithmOID(_ node: ASN1Node) throws -> ASN1ObjectIdentifier {
        guard case .constructed(let parts) = node.content, let oid = parts.first(where: { _ in true }) else {
            throw RevocationError("malformed AlgorithmIdentifier")
        }
        return try ASN1ObjectIdentifier(derEncoded: oid)
    }

    /// The signature algorithms a CRL may be signed with.
    static let signatureAlgorithms: [(ASN1ObjectIdentifier, Certificate.SignatureAlgorithm)] = [
        ([1, 2, 840, 10045, 4, 3, 2], .ecdsaWithSHA256),
        ([1, 2, 840, 10045, 4, 3, 3], .ecdsaWithSHA384),
        ([1, 2, 840, 10045, 4, 3, 4], .ecdsaWithSHA512),
        ([1, 2, 840, 113549, 1, 1, 11], .sha256WithRSAEncryption),
        ([1, 2, 840, 113549, 1, 1, 12], .sha384WithRSAEncryption),
        ([1, 2, 840, 113549, 1, 1, 13], .sha512WithRSAEncryption),
        ([1, 3, 101, 112], .ed25519),
    ]

    static func signatureAlgorithm(_ oid: ASN1ObjectIdentifier) -> Certificate.SignatureAlgorithm? {
        signatureAlgorithms.first { $0.0 == oid }?.1
    }
}
