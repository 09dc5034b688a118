import Foundation
import SecureSession
import TransportSecurity

/// The cookie file curl reads with `-b FILE` and writes with `-c FILE` (the Netscape format):
/// one cookie per line, seven tab-separated fields (domain, subdomains `TRUE`/`FALSE`, path,
/// secure `TRUE`/`FALSE`, expiry in seconds since 1970 or `0` for a session cookie, name,
/// value); `#HttpOnly_` before the domain of an HttpOnly cookie; other `#` lines are comments.
enum NetscapeCookieFile {
    /// Why a cookie file cannot be read: the file, the line and what is wrong.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// The cookies of `text` (read from `source`), created at `time`; a cookie for every domain
    /// under one of `publicSuffixes` goes to that name alone, as the jar has it from a server.
    static func cookies(in text: String, source: String, at time: Date, publicSuffixes: PublicSuffixList? = .bundled) throws(Malformed) -> [Cookie] {
        var cookies: [Cookie] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            // Lines end in LF or CRLF ("\r\n" is one Character, which a split on "\n" would miss).
            var line = rawLine
            var isHTTPOnly = false
            if line.hasPrefix("#HttpOnly_") {
                line = line.dropFirst("#HttpOnly_".count)
                isHTTPOnly = true
            } else if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) {
                continue
            }
            func malformed(_ reason: String) -> Malformed { Malformed(description: "\(source), line \(index + 1): \(reason)") }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 7 else { throw malformed("\(fields.count) tab-separated fields, not 7") }
            guard let includesSubdomains = flag(fields[1]), let isSecure = flag(fields[3]) else {
                throw malformed("the second and fourth fields must be TRUE or FALSE")
            }
            guard let expiry = Int64(fields[4]), expiry >= 0 else { throw malformed("the expiry '\(fields[4])' is not seconds since 1970") }
            let domainField = fields[0].hasPrefix(".") ? fields[0].dropFirst() : fields[0]
            guard !domainField.isEmpty, !fields[5].isEmpty, fields[2].hasPrefix("/") else {
                throw malformed("a cookie needs a domain, a name and a path starting with /")
            }
            if let control = line.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
                throw malformed("it holds the control character U+\(String(format: "%04X", control.value)), which no cookie has")
            }
            // What a Set-Cookie field cannot set, a file cannot either: the `Cookie` field would
            // carry other cookies than the file's (`a; admin=1` as a value is two cookies).
            // By bytes: `;` followed by a combining mark is one Character, and still a `;`.
            if fields[5].utf8.contains(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ";") }) {
                throw malformed("the name '\(fields[5])' holds '=' or ';', which a Cookie field cannot carry")
            }
            if fields[6].utf8.contains(UInt8(ascii: ";")) { throw malformed("the value of \(fields[5]) holds ';', which a Cookie field cannot carry") }
            let host = ServerHost(String(domainField))
            if let problem = host.nameProblem { throw malformed("the domain \(problem)") }
            let domain = host.name
            // As for a server's Set-Cookie: never a cookie for every domain under a public suffix
            // (curl writes `.localhost TRUE` for `Domain=localhost`): such a cookie goes to that
            // name alone.
            let isPublicSuffix = publicSuffixes.map { $0.isPublicSuffix(domain) } ?? !domain.contains(".")
            cookies.append(Cookie(
                name: String(fields[5]),
                value: String(fields[6]),
                domain: domain,
                isHostOnly: !includesSubdomains || isPublicSuffix,
                path: String(fields[2]),
                expiresAt: expiry == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(min(expiry, latestExpiry))),
                isSecure: isSecure,
                isHTTPOnly: isHTTPOnly,
                createdAt: time
            ))
        }
        return cookies
    }

    /// Why `cookie` cannot be written to a cookie file, or `nil`: a tab in its name, value or
    /// path, which HTTP allows and the file's tab-separated lines cannot hold (written, the line
    /// would have too many fields, and the whole file would be refused when read back).
    static func unwritable(_ cookie: Cookie) -> String? {
        guard [cookie.name, cookie.value, cookie.path].contains(where: { $0.utf8.contains(UInt8(ascii: "\t")) }) else { return nil }
        return "the cookie \(cookie.name.escapingControlCharacters) of \(cookie.domain) holds a tab, which a cookie file cannot hold: not written"
    }

    /// The latest expiry kept, the last second of year 9999 (`253402300799`): a later one (curl
    /// keeps 64-bit seconds) is read as this, and a time is written no later.
    static let latestExpiry: Int64 = 253_402_300_799

    /// `cookies` as a cookie file curl reads; give it only cookies ``unwritable(_:)`` passes.
    static func text(of cookies: [Cookie]) -> String {
        var text = "# Netscape HTTP Cookie File\n# Written by tsec: curl -b and -c read it.\n\n"
        for cookie in cookies {
            let domain = (cookie.isHTTPOnly ? "#HttpOnly_" : "") + (cookie.isHostOnly ? "" : ".") + cookie.domain
            let expiry = cookie.expiresAt.map { String(Int64(min(max($0.timeIntervalSince1970.rounded(.down), 1), Double(latestExpiry)))) } ?? "0"
            text += [domain, cookie.isHostOnly ? "FALSE" : "TRUE", cookie.path, cookie.isSecure ? "TRUE" : "FALSE", expiry, cookie.name, cookie.value]
                .joined(separator: "\t") + "\n"
        }
        return text
    }

    private static func flag(_ text: Substring) -> Bool? {
        switch text.uppercased() {
        case "TRUE": return true
        case "FALSE": return false
        default: return nil
        }
    }
}
