import Testing
import TestServers

@testable import SecureSession

@Suite("WWW-Authenticate challenges and Digest answers")
struct AuthenticateHeaderTests {
    @Test("challenges: several per field, quoted values with escapes and commas, tokens, names in any case, a bare scheme")
    func parsing() {
        let parsed = AuthenticateHeader.parse([
            #"Digest realm="lab, \"quoted\" \\ realm", NONCE=abc123, qop="auth,auth-int", Basic realm="b""#,
            "Negotiate",
            "  ,, Bearer error=invalid_token ,",
        ])
        #expect(parsed.map(\.scheme) == ["digest", "basic", "negotiate", "bearer"])
        #expect(parsed[0].parameters == ["realm": #"lab, "quoted" \ realm"#, "nonce": "abc123", "qop": "auth,auth-int"])
        #expect(parsed[1].parameters == ["realm": "b"])
        #expect(parsed[2].parameters.isEmpty)
        #expect(parsed[3].parameters == ["error": "invalid_token"])
    }

    @Test("hostile fields: an unterminated quote, a trailing backslash, a lone '=', nothing at all")
    func hostileFields() {
        #expect(AuthenticateHeader.parse([#"Digest realm="never closed, nonce=x"#]).first?.parameters["realm"] == "never closed, nonce=x")
        #expect(AuthenticateHeader.parse([#"Digest realm="ends in \"#]).first?.parameters["realm"] == "ends in ")
        #expect(AuthenticateHeader.parse(["Digest =x"]).map(\.scheme) == ["digest", "=x"])
        #expect(AuthenticateHeader.parse(["", " ", ","]).isEmpty)
    }

    @Test("10,000 random fields, half of them shaped like Digest challenges: nothing traps, schemes are single tokens, and a Digest answer quotes what the server sent so that it reads back the same")
    func randomFields() throws {
        let alphabet: [String] = [
            "Digest", "Basic", "realm", "nonce", "opaque", "qop", "algorithm", "auth", "MD5", "SHA-256-sess",
            " ", ",", "=", "\"", "\\", "a", "Z", "0", "\t", "é", "e\u{301}", "\u{301}", ",\u{301}", "\"\u{301}", "\\\u{301}",
            " \u{301}", "=\u{301}", "\u{200B}", "\u{00A0}", "😀", "\r\n",
        ]
        var random = SplitMix64(seed: 0x5EED)
        var answered = 0
        for _ in 0..<10_000 {
            func noise(_ count: ClosedRange<Int>) -> String {
                (0..<Int.random(in: count, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
            }
            // Half the fields are noise; half are shaped like challenges, with noise in their values.
            let field: String
            if Bool.random(using: &random) {
                field = noise(0...24)
            } else {
                let parameters = ["realm", "nonce", "opaque", "qop", "algorithm", "Nonce"].filter { _ in Int.random(in: 0..<4, using: &random) > 0 }
                    .map { name in
                        let value = name == "qop" ? "auth" : name == "algorithm" ? ["MD5", "sha-256", "SHA-256-sess", "x"].randomElement(using: &random)! : noise(0...6)
                        return Bool.random(using: &random) ? "\(name)=\"\(value)\"" : "\(name)=\(value)"
                    }
                field = "Digest " + parameters.joined(separator: [",", ", ", " ,"].randomElement(using: &random)!)
            }
            for challenge in AuthenticateHeader.parse([field]) {
                #expect(!challenge.scheme.isEmpty && !challenge.scheme.contains(where: { $0 == " " || $0 == "," }), "\(field)")
                #expect(challenge.parameters.keys.allSatisfy { !$0.isEmpty && $0 == $0.lowercased() }, "\(field)")
                guard challenge.scheme == "digest",
                    let answer = DigestAuthorization.value(
                        for: challenge, user: #"al"ice\"#, password: "pw", method: "GET", uri: "/a?b=\"c\"", cnonce: "c0ffee"
                    )
                else { continue }
                answered += 1
                let reread = try #require(AuthenticateHeader.parse([answer]).first, "\(field)")
                #expect(reread.scheme == "digest")
                #expect(reread.parameters["username"] == #"al"ice\"#)
                #expect(reread.parameters["uri"] == "/a?b=\"c\"")
                for name in ["nonce", "opaque"] { #expect(reread.parameters[name] == challenge.parameters[name], "\(name) of \(field)") }
                #expect(reread.parameters["realm"] == (challenge.parameters["realm"] ?? ""), "\(field)")
            }
        }
        #expect(answered > 1_000, "the fields made \(answered) Digest answers")
    }

    @Test("a Digest answer escapes every quote and backslash, a quote followed by a combining mark included (one Character, still a quote byte)")
    func digestQuotingByScalars() throws {
        let challenge = try #require(AuthenticateHeader.parse([#"Digest realm="lab", nonce="n0", qop="auth""#]).first)
        let mark = "\u{301}"
        let user = "al\"" + mark + "ice\\" + mark
        let uri = "/a\"" + mark
        let answer = DigestAuthorization.value(for: challenge, user: user, password: "pw", method: "GET", uri: uri, cnonce: "c0ffee") ?? ""
        let expectedUser = "username=\"al\\\"" + mark + "ice\\\\" + mark + "\""
        let expectedURI = "uri=\"/a\\\"" + mark + "\""
        #expect(answer.utf8.firstRange(of: expectedUser.utf8) != nil, "\(answer)")
        #expect(answer.utf8.firstRange(of: expectedURI.utf8) != nil, "\(answer)")
    }

    @Test("a Digest user name with a control character goes as username* (RFC 7616 §3.4, RFC 8187's UTF-8 notation); others, non-ASCII included, as username")
    func digestExtendedUserName() throws {
        #expect(DigestAuthorization.userField("tab\tand\u{1}bell") == "username*=UTF-8''tab%09and%01bell")
        #expect(DigestAuthorization.userField("€ a\u{7F}!~") == "username*=UTF-8''%E2%82%AC%20a%7F!~")
        #expect(DigestAuthorization.userField("jürgen\tx") == "username=\"jürgen\tx\"")
        let challenge = try #require(AuthenticateHeader.parse([#"Digest realm="lab", nonce="n0", qop="auth""#]).first)
        let answer = DigestAuthorization.value(for: challenge, user: "a\u{1}b", password: "pw", method: "GET", uri: "/", cnonce: "c0ffee") ?? ""
        #expect(answer.hasPrefix("Digest username*=UTF-8''a%01b, realm=\"lab\""), "\(answer)")
        #expect(!answer.contains("username="))
    }
}
