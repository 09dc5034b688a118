import Crypto
import Foundation
import TransportSecurity

/// The `Authorization` value answering an HTTP Digest challenge (RFC 7616) with `qop=auth`,
/// MD5 or SHA-256 (and their `-sess` variants).
enum DigestAuthorization {
    /// Hash algorithms RFC 7616 names and this session supports.
    enum Algorithm: String {
        case md5 = "MD5"
        case md5Session = "MD5-SESS"
        case sha256 = "SHA-256"
        case sha256Session = "SHA-256-SESS"

        func hash(_ text: String) -> String {
            let data = Data(text.utf8)
            switch self {
            case .md5, .md5Session: return Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined()
            case .sha256, .sha256Session: return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            }
        }

        var isSession: Bool { self == .md5Session || self == .sha256Session }

        /// Higher for a stronger hash: SHA-256 is chosen over MD5 when a server offers both.
        var strength: Int {
            switch self {
            case .md5, .md5Session: return 1
            case .sha256, .sha256Session: return 2
            }
        }
    }

    /// The algorithm a challenge would be answered with, or `nil` when it cannot be answered (no
    /// nonce, an algorithm this session does not implement such as SHA-512-256, or a quality of
    /// protection other than `auth`).
    static func algorithm(answering challenge: AuthenticateHeader) -> Algorithm? {
        guard challenge.parameters["nonce"] != nil,
            let algorithm = Algorithm(rawValue: (challenge.parameters["algorithm"] ?? "MD5").uppercased())
        else { return nil }
        let qop = offeredQOP(in: challenge)
        guard qop.isEmpty || qop.contains("auth") else { return nil }
        return algorithm
    }

    /// The qualities of protection a challenge offers (`qop="auth,auth-int"`), lowercased; empty
    /// for an RFC 2069 challenge without `qop`.
    private static func offeredQOP(in challenge: AuthenticateHeader) -> [String] {
        (challenge.parameters["qop"] ?? "").split(separator: ",").map { $0.trimmingHTTPWhitespace.lowercased() }
    }

    /// The header value, or `nil` when the challenge cannot be answered (no nonce, an unknown
    /// algorithm, no `auth` quality of protection).
    static func value(
        for challenge: AuthenticateHeader,
        user: String,
        password: String,
        method: String,
        uri: String,
        cnonce: String = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased(),
        nonceCount: Int = 1
    ) -> String? {
        guard let algorithm = algorithm(answering: challenge), let nonce = challenge.parameters["nonce"] else { return nil }
        let realm = challenge.parameters["realm"] ?? ""
        let usesQOP = !offeredQOP(in: challenge).isEmpty
        let nc = String(format: "%08x", nonceCount)
        var ha1 = algorithm.hash("\(user):\(realm):\(password)")
        if algorithm.isSession { ha1 = algorithm.hash("\(ha1):\(nonce):\(cnonce)") }
        let ha2 = algorithm.hash("\(method):\(uri)")
        let response =
            usesQOP
            ? algorithm.hash("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
            : algorithm.hash("\(ha1):\(nonce):\(ha2)")
        var fields = [
            userField(user),
            "realm=\"\(quoted(realm))\"",
            "nonce=\"\(quoted(nonce))\"",
            "uri=\"\(quoted(uri))\"",
            "algorithm=\(algorithm.rawValue.replacingOccurrences(of: "-SESS", with: "-sess"))",
            "response=\"\(response)\"",
        ]
        if usesQOP { fields += ["qop=auth", "nc=\(nc)", "cnonce=\"\(cnonce)\""] }
        if let opaque = challenge.parameters["opaque"] { fields.append("opaque=\"\(quoted(opaque))\"") }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// The field carrying the user name: `username="…"`, or RFC 7616 §3.4's `username*` in RFC
    /// 8187's notation (`UTF-8''` and the name's UTF-8 bytes, percent-encoded) when the name holds
    /// a character a quoted string cannot carry: a control character other than a tab. Other
    /// names, non-ASCII ones included (a quoted string's `obs-text`), go as they are, which
    /// servers without `username*` (Apache's, nginx's modules) read too.
    static func userField(_ user: String) -> String {
        guard user.holdsFieldValueControlCharacter else {
            return "username=\"\(quoted(user))\""
        }
        // RFC 8187 §3.2.1's attr-char: letters, digits and these.
        let kept = Set("!#$&+-.^_`|~".utf8)
        let encoded = user.utf8.map { byte -> String in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return String(UnicodeScalar(byte))
            default:
                return kept.contains(byte) ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
            }
        }
        return "username*=UTF-8''" + encoded.joined()
    }

    /// `text` with a backslash before each quote and backslash, by Unicode scalar (a quote
    /// followed by a combining mark is one Character, but still a quote byte to the server).
    private static func quoted(_ text: String) -> String {
        text.replacingScalars { $0 == "\\" || $0 == "\"" ? "\\" + String($0) : nil }
    }
}
