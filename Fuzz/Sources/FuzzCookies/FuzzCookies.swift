import Foundation
import FuzzDriver
import SecureSession
import TransportSecurity

// 公司.cn is written in Unicode, as Debian's list writes it; hosts reach it as xn--55qx5d.cn.
private let publicSuffixes = PublicSuffixList(text: "com\nuk\nco.uk\n*.ck\n!www.ck\ncn\n公司.cn\n")
private let origins = [
    "https://api.example.com/app/login", "http://example.com/", "https://co.uk/", "http://127.0.0.1/x", "https://[::1]/",
    "https://shop.xn--55qx5d.cn/",
]

/// `Set-Cookie` fields, one per line, the first byte choosing the response's origin: whatever a
/// server sends, the jar keeps only cookies the origin may set (`Secure` ones over https or to a
/// loopback host), with names and values trimmed of spaces and tabs, and the `Cookie` field it
/// makes for that origin holds no line break or control character.
func fuzzCookies(_ input: UnsafeRawBufferPointer) {
    guard let first = input.first else { return }
    let origin = URL(string: origins[Int(first) % origins.count])!
    let host = (origin.host ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    let fields = String(decoding: UnsafeRawBufferPointer(rebasing: input.dropFirst()), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let jar = CookieJar(publicSuffixes: publicSuffixes, clock: { Date(timeIntervalSince1970: 1_900_000_000) })
    jar.store(setCookieFields: fields, from: origin)
    for cookie in jar.cookies {
        precondition(cookie.domain == host || host.hasSuffix("." + cookie.domain), "a cookie for a domain the host is not part of")
        precondition(cookie.isHostOnly || !publicSuffixes.isPublicSuffix(cookie.domain), "a cookie for a public suffix")
        precondition(!cookie.isSecure || origin.scheme == "https" || host == "127.0.0.1", "a Secure cookie set over http to a host that is not loopback")
        precondition(cookie.path.hasPrefix("/"), "a path that does not start with /")
        for part in [cookie.name, cookie.value] {
            let ends = [part.unicodeScalars.first, part.unicodeScalars.last].compactMap { $0 }
            precondition(!ends.contains { $0 == " " || $0 == "\t" }, "a name or value that begins or ends with a space or a tab")
        }
    }
    if let field = jar.cookieField(for: origin) {
        precondition(!field.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }, "a control character in the Cookie field")
    }
}

@main
enum FuzzCookiesMain {
    static func main() { runFuzzer(fuzzCookies) }
}
