import Foundation
import TransportSecurity

/// Reads a `Set-Cookie` field into the ``Cookie`` a jar stores (RFC 6265 §5.2 and §5.3, with
/// RFC 6265bis's protections: no `Secure` cookie from http, the `__Secure-` and `__Host-`
/// prefixes honoured, no control characters).
struct SetCookie {
    /// Why a `Set-Cookie` field was ignored.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    /// The most bytes a cookie's name and value may have together (RFC 6265bis §5.6).
    static let maximumNameAndValueSize = 4_096
    /// The most bytes an attribute value may have (RFC 6265bis §5.6).
    static let maximumAttributeValueSize = 1_024

    /// The cookie `field` sets, for a response to `url` received at `time`, in a secure context
    /// (`secureContext`, by default judged from the URL alone) or not.
    /// - Throws: ``Refusal`` saying why the field sets nothing.
    static func cookie(
        from field: String, for url: URL, at time: Date, publicSuffixes: PublicSuffixList?, secureContext: Bool? = nil
    ) throws(Refusal) -> Cookie {
        guard !field.holdsFieldValueControlCharacter else {
            throw Refusal(description: "it holds control characters")
        }
        var sections = field.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        let pair = sections.next() ?? ""
        guard let equals = pair.firstIndex(of: "=") else { throw Refusal(description: "it has no name=value pair") }
        let name = pair[..<equals].trimmingHTTPWhitespace
        let value = pair[pair.index(after: equals)...].trimmingHTTPWhitespace
        guard !name.isEmpty else { throw Refusal(description: "its name is empty") }
        guard name.utf8.count + value.utf8.count <= maximumNameAndValueSize else {
            throw Refusal(description: "its name and value are longer than \(maximumNameAndValueSize) bytes")
        }

        var expires: Date?
        var maxAge: Date?
        var domainAttribute: String?
        var pathAttribute: String?
        var isSecure = false
        var isHTTPOnly = false
        while let section = sections.next() {
            let parts = section.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let attribute = parts[0].trimmingHTTPWhitespace.lowercased()
            let attributeValue = parts.count > 1 ? parts[1].trimmingHTTPWhitespace : ""
            guard attributeValue.utf8.count <= maximumAttributeValueSize else { continue }
            switch attribute {
            case "expires":
                if let date = CookieDate.parse(attributeValue) { expires = date }
            case "max-age":
                if let seconds = maxAgeSeconds(attributeValue) {
                    maxAge = seconds <= 0 ? .distantPast : time.addingTimeInterval(TimeInterval(min(seconds, 400 * 86_400)))
                }
            case "domain":
                if !attributeValue.isEmpty {
                    let domain = attributeValue.hasPrefix(".") ? String(attributeValue.dropFirst()) : attributeValue
                    domainAttribute = domain.lowercased()
                }
            case "path":
                pathAttribute = attributeValue.hasPrefix("/") ? attributeValue : nil
            case "secure":
                isSecure = true
            case "httponly":
                isHTTPOnly = true
            default:
                continue
            }
        }

        let host = requestHost(of: url)
        let isSecureRequest = secureContext ?? CookieMatching.isSecureContext(url)
        var domain = host
        var isHostOnly = true
        if var attribute = domainAttribute {
            if attribute.hasSuffix(".") { attribute.removeLast() }
            if publicSuffixes.map({ $0.isPublicSuffix(attribute) }) ?? !attribute.contains(".") {
                // A domain anyone may register under: only the host itself may name it.
                guard attribute == host else {
                    throw Refusal(description: "its domain \(attribute) is a public suffix")
                }
            } else if !CookieMatching.isIPAddress(host) {
                guard CookieMatching.domain(host, matches: attribute) else {
                    throw Refusal(description: "its domain \(attribute) does not cover the host \(host)")
                }
                domain = attribute
                isHostOnly = false
            } else if attribute != host {
                // An address only ever gets host-only cookies.
                throw Refusal(description: "its domain \(attribute) is not the address \(host)")
            }
        }
        if isSecure, !isSecureRequest { throw Refusal(description: "it is Secure but came over http") }
        let lowercasedName = name.lowercased()
        if lowercasedName.hasPrefix("__secure-"), !(isSecure && isSecureRequest) {
            throw Refusal(description: "a __Secure- cookie must be Secure and come over https")
        }
        if lowercasedName.hasPrefix("__host-"), !(isSecure && isSecureRequest && domainAttribute == nil && pathAttribute == "/") {
            throw Refusal(description: "a __Host- cookie must be Secure, come over https, name no domain and have the path /")
        }
        return Cookie(
            name: name,
            value: value,
            domain: domain,
            isHostOnly: isHostOnly,
            path: pathAttribute ?? CookieMatching.defaultPath(of: CookieMatching.requestPath(of: url)),
            expiresAt: maxAge ?? expires.map { min($0, time.addingTimeInterval(400 * 86_400)) },
            isSecure: isSecure,
            isHTTPOnly: isHTTPOnly,
            createdAt: time
        )
    }

    /// The host a cookie is set for and sent to: lowercased, without brackets or a trailing dot
    /// (an address in its canonical form).
    static func requestHost(of url: URL) -> String { ServerHost(url.host ?? "").name }

    /// A Max-Age value: an optional `-` and digits (anything else ignores the attribute);
    /// saturated rather than overflowing.
    private static func maxAgeSeconds(_ text: String) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard let magnitude = DecimalNumber.saturating(digits.utf8).map(Int.init(clamping:)) else { return nil }
        return text.hasPrefix("-") ? -magnitude : magnitude
    }
}
