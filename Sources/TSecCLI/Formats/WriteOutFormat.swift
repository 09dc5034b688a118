import ArgumentParser
import Foundation
import SecureSession

/// `tsec get -w/--write-out FORMAT`, curl's: text printed once the transfer is over (after a
/// failure too), with `%{variable}` replaced by what the transfer did, `%header{name}` by a
/// field of the response, `%%` by `%`, and `\n`, `\r`, `\t`, `\\` by what they stand for. A
/// variable this tool does not know is refused before anything is sent (curl warns and prints
/// nothing for it: a typo in a monitoring script would go unnoticed).
struct WriteOutFormat {
    /// The variables, by their curl names.
    enum Variable: String, CaseIterable {
        case httpCode = "http_code"
        case responseCode = "response_code"
        case httpVersion = "http_version"
        case contentType = "content_type"
        case urlEffective = "url_effective"
        case numRedirects = "num_redirects"
        case numRetries = "num_retries"
        case numConnects = "num_connects"
        case sizeDownload = "size_download"
        case speedDownload = "speed_download"
        case sizeUpload = "size_upload"
        case speedUpload = "speed_upload"
        case timeConnect = "time_connect"
        case timeAppConnect = "time_appconnect"
        case timePreTransfer = "time_pretransfer"
        case timeStartTransfer = "time_starttransfer"
        case timeTotal = "time_total"
        case sslVerifyResult = "ssl_verify_result"
        case exitCode = "exitcode"
        case errorMessage = "errormsg"
        /// Not a value: what follows goes to standard output (the default).
        case stdout
        /// Not a value: what follows goes to standard error.
        case stderr
    }

    enum Piece: Equatable {
        case text(String)
        case variable(Variable)
        case header(String)
    }

    let pieces: [Piece]

    /// Reads `format`; an unknown or unterminated `%{…}` is refused, naming it.
    init(_ format: String) throws {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(format)
        while let first = rest.first {
            rest = rest.dropFirst()
            switch first {
            case "\\":
                let escaped: [Character: String] = ["n": "\n", "r": "\r", "t": "\t", "\\": "\\"]
                if let next = rest.first, let meaning = escaped[next] {
                    text += meaning
                    rest = rest.dropFirst()
                } else {
                    text.append(first)
                }
            case "%":
                if rest.first == "%" {
                    text += "%"
                    rest = rest.dropFirst()
                    continue
                }
                let isHeader = rest.hasPrefix("header{")
                guard isHeader || rest.hasPrefix("{") else {
                    text.append(first)
                    continue
                }
                rest = rest.dropFirst(isHeader ? "header{".count : 1)
                guard let close = rest.firstIndex(of: "}") else {
                    throw ValidationError("-w/--write-out: '%\(isHeader ? "header" : ""){\(rest)' has no closing '}'")
                }
                let name = String(rest[..<close])
                rest = rest[rest.index(after: close)...]
                if !text.isEmpty { pieces.append(.text(text)) }
                text = ""
                if isHeader {
                    guard !name.isEmpty else { throw ValidationError("-w/--write-out: %header{} names no field") }
                    pieces.append(.header(name))
                } else {
                    guard let variable = Variable(rawValue: name) else {
                        throw ValidationError(
                            "-w/--write-out: unknown variable %{\(name)}; known: \(Variable.allCases.map(\.rawValue).joined(separator: ", ")), and %header{NAME}"
                        )
                    }
                    pieces.append(.variable(variable))
                }
            default:
                text.append(first)
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// Whether the format prints what was uploaded (`%{size_upload}`, `%{speed_upload}`).
    var reportsUploads: Bool {
        pieces.contains { $0 == .variable(.sizeUpload) || $0 == .variable(.speedUpload) }
    }

    /// What the transfer did, for the variables.
    struct Transfer {
        /// The response, `nil` when none came.
        var response: SecureResponse?
        /// The body bytes received (printed, held or written to the file).
        var bodyBytes: Int64
        /// The request body bytes the connection took (the last sending's, after a retry).
        var uploadedBytes: Int64 = 0
        /// Whether the server's certificate was rejected.
        var trustRejected: Bool
        var exitStatus: Int32
        /// The failure's sentence, empty after a success.
        var errorMessage: String
    }

    /// Writes the format's text for `transfer` to `terminal` (to stdout, or to stderr after
    /// `%{stderr}`).
    func write(_ transfer: Transfer, to terminal: CommandOutput) {
        var toError = false
        var pending = ""
        func flush() {
            guard !pending.isEmpty else { return }
            if toError { terminal.errorText(pending) } else { terminal.bytes(Data(pending.utf8)) }
            pending = ""
        }
        for piece in pieces {
            switch piece {
            case .text(let text): pending += text
            case .header(let name): pending += transfer.response?.header(name) ?? ""
            case .variable(.stdout), .variable(.stderr):
                flush()
                toError = piece == .variable(.stderr)
            case .variable(let variable): pending += Self.value(of: variable, in: transfer)
            }
        }
        flush()
    }

    /// A variable's text, as curl writes it (times in seconds with six decimals, counted from
    /// the start of the exchange that answered; `time_total` covers redirects and retries).
    static func value(of variable: Variable, in transfer: Transfer) -> String {
        let response = transfer.response
        let timing = response?.timing
        // The end of each phase, from the start of the exchange that answered.
        let connected = (timing?.queueing ?? .zero) + (timing?.connect ?? .zero)
        let secured = connected + (timing?.tlsHandshake ?? .zero)
        let firstByte = secured + (timing?.waiting ?? .zero)
        func seconds(_ duration: Duration?) -> String {
            String(format: "%.6f", Double(duration?.inMilliseconds ?? 0) / 1000)
        }
        switch variable {
        case .httpCode, .responseCode: return response.map { String(format: "%03d", $0.statusCode) } ?? "000"
        case .httpVersion: return response.map { $0.httpVersion.replacingOccurrences(of: "HTTP/", with: "") } ?? "0"
        case .contentType: return response?.header("Content-Type") ?? ""
        case .urlEffective: return response?.url.redacted ?? ""
        case .numRedirects: return String(response?.redirects.count ?? 0)
        case .numRetries: return String(max(0, (response?.attempts ?? 1) - 1))
        case .numConnects: return timing.map { $0.reusedConnection ? "0" : "1" } ?? "0"
        case .sizeDownload: return String(transfer.bodyBytes)
        case .speedDownload: return perSecond(transfer.bodyBytes, over: response)
        case .sizeUpload: return String(transfer.uploadedBytes)
        case .speedUpload: return perSecond(transfer.uploadedBytes, over: response)
        case .timeConnect: return seconds(response == nil ? nil : connected)
        case .timeAppConnect: return seconds(timing?.tlsHandshake == nil ? nil : secured)
        case .timePreTransfer: return seconds(response == nil ? nil : secured)
        case .timeStartTransfer: return seconds(response == nil ? nil : firstByte)
        case .timeTotal: return seconds(response?.duration)
        case .sslVerifyResult: return transfer.trustRejected ? "1" : "0"
        case .exitCode: return String(transfer.exitStatus)
        case .errorMessage: return transfer.errorMessage
        case .stdout, .stderr: return ""
        }
    }

    /// `bytes` per second over the whole transfer, as curl's speeds are.
    private static func perSecond(_ bytes: Int64, over response: SecureResponse?) -> String {
        let total = Double(response?.duration.inMilliseconds ?? 0) / 1000
        return total > 0 ? String(Int64(Double(bytes) / total)) : "0"
    }
}
