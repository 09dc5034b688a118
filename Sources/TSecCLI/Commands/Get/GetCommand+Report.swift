import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import SecureSession
import TransportSecurity
import TransportSecurityNIO

extension GetCommand {
    func report(_ response: SecureResponse, bodyPrinted: Bool, to terminal: CommandOutput) {
        if outputOptions.json {
            terminal.line(JSONOutput.encode(GetReport(response, bodyIncluded: output == nil)))
            return
        }
        let showsHead = outputOptions.include || outputOptions.headOnly || outputOptions.dumpHeader == "-"
        if showsHead, !bodyPrinted { Self.print(ResponseHead(response), to: terminal) }
        if output == nil, !bodyPrinted { terminal.bytes(response.body) }
        // Trailer fields after the body, as curl's -i and -D show them.
        if showsHead { terminal.bytes(Data(Self.trailerLines(of: response).map { $0 + "\n" }.joined().utf8)) }
    }

    /// The trailer fields of `response`, one `name: value` line each.
    static func trailerLines(of response: SecureResponse) -> [String] {
        response.trailers.map { "\($0.name): \($0.value)" }
    }

    /// `-i`: the status line, the header fields and an empty line. HTTP/2 has no reason phrase:
    /// its status line is the version and the code, as curl prints it (so is one whose phrase is
    /// empty).
    static func print(_ head: ResponseHead, to terminal: CommandOutput) {
        terminal.bytes(Data(headText(head).utf8))
    }

    /// `-v`: the response's status line and header fields on standard error, each after `< `, as
    /// curl's `-v` shows them; the values of `Set-Cookie` and of fields carrying credentials
    /// hidden (``CredentialRedaction``).
    static func tell(_ head: ResponseHead, to terminal: CommandOutput) {
        terminal.errorText(headLines(head, shown: CredentialRedaction.shown).map { "< \($0)\n" }.joined())
    }

    /// The lines `-i` prints and `-D` writes, each ending in a line feed, the last one empty.
    static func headText(_ head: ResponseHead) -> String {
        headLines(head).map { $0 + "\n" }.joined()
    }

    /// The status line, the header fields (their values as `shown` gives them) and an empty line.
    static func headLines(_ head: ResponseHead, shown: (String, String) -> String = { $1 }) -> [String] {
        let phrase = head.httpVersion == "HTTP/2" || head.reasonPhrase.isEmpty ? "" : " \(head.reasonPhrase)"
        return ["\(head.httpVersion) \(head.statusCode)\(phrase)"] + head.headers.map { "\($0.name): \(shown($0.name, $0.value))" } + [""]
    }

    /// `-v`: a request head as sent, each line after `> `, as curl's `-v` shows it; the
    /// credentials of `Authorization` and `Proxy-Authorization` hidden after their scheme, cookie
    /// values, a DPoP proof and fields whose names say they hold a key, token, secret, password
    /// or session hidden (no message of this tool shows a password or a token).
    static func tell(_ head: SentRequestHead, to terminal: CommandOutput) {
        let fields = head.headers.map { "\($0.name): " + CredentialRedaction.shown(name: $0.name, value: $0.value) }
        let lines = ["\(head.method) \(head.target) \(head.httpVersion)"] + fields + [""]
        terminal.errorText(lines.map { "> \($0)\n" }.joined())
    }
}
