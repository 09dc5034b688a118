/// A SPIFFE ID (`spiffe://trust-domain/path`), the workload identity that service meshes and
/// SPIRE put in a client certificate's one URI subjectAltName (an X.509 SVID).
///
/// Read strictly, as the SPIFFE ID specification writes it (SPIFFE-ID.md §2): the scheme
/// `spiffe` in lower case; a trust domain of lower-case letters, digits, `.`, `-` and `_`; a path
/// of segments made of letters, digits, `.`, `-` and `_`, none empty, none `.` or `..`, no
/// trailing `/`; no port, user, query, fragment or percent-encoding; 2,048 bytes at most. An ID
/// with no path names the trust domain itself, not a workload.
public struct SPIFFEID: Sendable, Hashable, CustomStringConvertible {
    /// The trust domain: `example.org` in `spiffe://example.org/ns/payments/sa/api`.
    public let trustDomain: String
    /// The path, empty or starting with `/`: `/ns/payments/sa/api`.
    public let path: String

    /// Reads a SPIFFE ID.
    /// - Throws: ``SPIFFEIDError`` naming the text and what is wrong with it.
    public init(_ text: String) throws(SPIFFEIDError) {
        func fail(_ reason: SPIFFEIDError.Reason) -> SPIFFEIDError { SPIFFEIDError(text: text, reason: reason) }
        guard text.utf8.count <= 2048 else { throw fail(.tooLong) }
        let scheme = "spiffe://"
        guard text.utf8.starts(with: scheme.utf8) else {
            throw fail(text.lowercased().hasPrefix(scheme) ? .schemeNotLowercase : .notSPIFFEScheme)
        }
        let rest = text.utf8.dropFirst(scheme.utf8.count)
        let slash = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        let domain = rest[..<slash]
        let path = rest[slash...]
        guard !domain.isEmpty else { throw fail(.emptyTrustDomain) }
        for byte in domain where !Self.isTrustDomainByte(byte) {
            switch byte {
            case UInt8(ascii: ":"): throw fail(.port)
            case UInt8(ascii: "@"): throw fail(.userInfo)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): throw fail(.trustDomainNotLowercase)
            default: throw fail(Self.uriDelimiterReason(byte) ?? .trustDomainCharacter(Character(Unicode.Scalar(byte))))
            }
        }
        if !path.isEmpty {
            let segments = path.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            for segment in segments {
                guard !segment.isEmpty else {
                    throw fail(segment.endIndex == path.endIndex ? .trailingSlash : .emptySegment)
                }
                if segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8) { throw fail(.dotSegment) }
                for byte in segment where !Self.isPathByte(byte) {
                    throw fail(Self.uriDelimiterReason(byte) ?? .pathCharacter(Character(Unicode.Scalar(byte))))
                }
            }
        }
        trustDomain = String(decoding: domain, as: UTF8.self)
        self.path = String(decoding: path, as: UTF8.self)
    }

    /// Whether `uri` is written in the `spiffe` scheme, in any letter case, well formed or not.
    static func isSPIFFEURI(_ uri: String) -> Bool {
        uri.lowercased().hasPrefix("spiffe:")
    }

    /// The SPIFFE ID of an X.509 SVID among a certificate's URIs: the one URI in the `spiffe`
    /// scheme, well formed and naming a workload; `nil` when there is none, when it is malformed
    /// or names a trust domain, or when there are several (SPIFFE X509-SVID §2).
    static func svidID(among uris: [String]) -> SPIFFEID? {
        let spiffeURIs = uris.filter(isSPIFFEURI)
        guard spiffeURIs.count == 1, let id = try? SPIFFEID(spiffeURIs[0]), !id.isTrustDomainID else { return nil }
        return id
    }

    /// Whether the ID names the trust domain itself (no path) rather than a workload.
    public var isTrustDomainID: Bool { path.isEmpty }

    /// `spiffe://trust-domain/path`.
    public var description: String { "spiffe://\(trustDomain)\(path)" }

    /// Whether `other` is this ID or lies below it, a whole segment at a time
    /// (`spiffe://td/ns/pay` contains `spiffe://td/ns/pay/sa/api`, not `spiffe://td/ns/payments`).
    public func contains(_ other: SPIFFEID) -> Bool {
        guard other.trustDomain == trustDomain else { return false }
        guard other.path.utf8.starts(with: path.utf8) else { return false }
        return other.path.utf8.count == path.utf8.count || other.path.utf8.dropFirst(path.utf8.count).first == UInt8(ascii: "/")
    }

    private static func isTrustDomainByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    private static func isPathByte(_ byte: UInt8) -> Bool {
        isTrustDomainByte(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// What a byte no part of a SPIFFE ID allows means, when it means more than itself: a URI
    /// delimiter, or a byte of a non-ASCII character.
    private static func uriDelimiterReason(_ byte: UInt8) -> SPIFFEIDError.Reason? {
        switch byte {
        case UInt8(ascii: "?"): return .query
        case UInt8(ascii: "#"): return .fragment
        case UInt8(ascii: "%"): return .percentEncoding
        case 0x80...: return .nonASCII
        default: return nil
        }
    }
}

/// Why a text is not a SPIFFE ID.
public struct SPIFFEIDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Sendable, Hashable {
        /// It does not start with `spiffe://`.
        case notSPIFFEScheme
        /// `SPIFFE://` or another spelling: the scheme must be lower case.
        case schemeNotLowercase
        /// Nothing between `spiffe://` and the path.
        case emptyTrustDomain
        /// The trust domain has an upper-case letter.
        case trustDomainNotLowercase
        /// The trust domain has a character other than `a-z 0-9 . - _`.
        case trustDomainCharacter(Character)
        /// A port (`:8443`).
        case port
        /// A user (`user@`).
        case userInfo
        /// A path with `//`.
        case emptySegment
        /// A path ending with `/`.
        case trailingSlash
        /// A `.` or `..` segment.
        case dotSegment
        /// The path has a character other than letters, digits, `. - _`.
        case pathCharacter(Character)
        /// A query (`?`).
        case query
        /// A fragment (`#`).
        case fragment
        /// Percent-encoding (`%2F`).
        case percentEncoding
        /// A character outside ASCII (an internationalized name must be in its `xn--` form).
        case nonASCII
        /// Over 2,048 bytes.
        case tooLong
    }

    /// The text read.
    public let text: String
    /// What is wrong with it.
    public let reason: Reason

    /// `"spiffe://Example.org/x" is not a SPIFFE ID: …`.
    public var description: String {
        let why: String
        switch reason {
        case .notSPIFFEScheme: why = "it does not start with spiffe://"
        case .schemeNotLowercase: why = "the scheme must be written spiffe://, in lower case"
        case .emptyTrustDomain: why = "the trust domain is empty"
        case .trustDomainNotLowercase: why = "the trust domain must be lower case"
        case .trustDomainCharacter(let character): why = "the trust domain may hold only a-z, 0-9, '.', '-' and '_', not '\(String(character).escapingControlCharacters)'"
        case .port: why = "a SPIFFE ID has no port"
        case .userInfo: why = "a SPIFFE ID has no user part"
        case .emptySegment: why = "the path has an empty segment (//)"
        case .trailingSlash: why = "the path ends with '/'"
        case .dotSegment: why = "the path has a '.' or '..' segment"
        case .pathCharacter(let character): why = "the path may hold only letters, digits, '.', '-' and '_', not '\(String(character).escapingControlCharacters)'"
        case .query: why = "a SPIFFE ID has no query (?)"
        case .fragment: why = "a SPIFFE ID has no fragment (#)"
        case .percentEncoding: why = "a SPIFFE ID has no percent-encoding"
        case .nonASCII: why = "a SPIFFE ID is ASCII only"
        case .tooLong: why = "it is longer than 2,048 bytes"
        }
        return "\"\(text.escapingControlCharacters)\" is not a SPIFFE ID: \(why)"
    }
}
