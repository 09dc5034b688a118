import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// How a download picks up where it stopped, with range requests (RFC 9110 §14): an attempt
/// after one whose body broke off asks only for the bytes the file lacks (`Range: bytes=N-`)
/// on condition that the body is still the same one (`If-Range` with its strong `ETag`, else a
/// strong `Last-Modified`); a partial file the caller asks to continue is continued the same
/// way. What the server answers decides, attempt by attempt, when the body arrives:
///
/// - `206` whose `Content-Range` starts where the file ends: the part is appended;
/// - `206` starting anywhere else, or when no range was asked: the server answered another
///   question, and the download fails (``SecureSessionError/invalidResponse(_:underlying:)``) rather than
///   splice a wrong file or keep a part for the whole;
/// - `416` with `Content-Range: bytes */N`, N the file's length: the file was already whole;
/// - anything else (a `200` because the body changed or the server ignores ranges, an error):
///   the body starts over from nothing, and the file holding the start of the old one is not
///   touched until a new one is accepted.
///
/// A body without a validator is never continued within a download (without `If-Range`, a
/// changed body would be spliced onto the old one), nor one the session decompresses (ranges
/// count the compressed bytes); a request with a `Range` of its own is left alone.
final class DownloadResumption: @unchecked Sendable {
    private let file: DownloadFile
    private let logger: Logger
    private let lock = NSLock()
    /// Whether ranges are asked at all.
    private let isEnabled: Bool
    /// Whether the file holds the start of the body asked for.
    private var holdsBodyStart: Bool
    /// The `If-Range` value that makes sure of it; `nil` when there is none.
    private var validator: String?
    /// Whether a range may be asked without a validator: only for a partial file the caller
    /// gave to continue (curl's `-C -`), until a server answers with a whole body.
    private var continuesUnvalidated: Bool
    /// The first byte the attempt under way asked for; `nil` when it asked for the whole body.
    private var asked: Int64?
    /// Whether the attempt under way has not been decided yet.
    private var isUndecided = false
    /// The whole body's length, when the answer said.
    private var expectedLength: Int64?
    private var wasComplete = false

    /// Prepares the download of `request` into `file`; `continuing` when `file` holds the start
    /// of the body (the caller's partial file); without `resumes`, every attempt asks for the
    /// whole body.
    init(file: DownloadFile, request: SecureRequest, continuing: Bool, decompression: ResponseDecompression, resumes: Bool = true, logger: Logger) {
        self.file = file
        self.logger = logger
        isEnabled = resumes && decompression == .disabled && request.header("Range") == nil
        holdsBodyStart = continuing && file.length > 0
        validator = request.header("If-Range")
        continuesUnvalidated = continuing
    }

    /// Whether the server said the file was already whole (a `416` for the range after its
    /// last byte): the download succeeds and leaves the file as it is.
    var fileWasComplete: Bool { lock.withLock { wasComplete } }

    /// Whether the file holds the start of the body (a partial file, or part of a `200` or `206`
    /// answer): what is worth keeping for a later download to continue.
    var fileHoldsBodyStart: Bool { lock.withLock { holdsBodyStart } }

    /// The request of the next attempt: with a range after the bytes the file holds when they
    /// can be continued.
    func prepare(_ request: SecureRequest) -> SecureRequest {
        lock.withLock {
            isUndecided = true
            asked = nil
            guard isEnabled else { return request }
            var prepared = request
            prepared.headers.removeAll { $0.name.equalsIgnoringASCIICase("If-Range") }
            let held = file.length
            guard holdsBodyStart, held > 0, validator != nil || continuesUnvalidated else { return prepared }
            asked = held
            prepared.headers.append((name: "Range", value: "bytes=\(held)-"))
            if let validator { prepared.headers.append((name: "If-Range", value: validator)) }
            logger.debug("resuming the download", metadata: ["url": "\(request.url.redacted)", "from byte": "\(held)", "if-range": "\(validator ?? "none")"])
            return prepared
        }
    }

    /// Writes a part of the answer, deciding first what the answer's head means for the file;
    /// the progress made.
    func write(_ buffer: ByteBuffer, of head: HTTPResponseHead) throws -> TransferProgress {
        try decide(status: Int(head.status.code)) { head.headers.first(name: $0) }
        if !fileWasComplete { try file.write(buffer) }
        return TransferProgress(bytesReceived: file.length, expectedBytes: lock.withLock { expectedLength })
    }

    /// Decides on the final answer when no part of its body came.
    func settle(_ response: SecureResponse) throws {
        try decide(status: response.statusCode, header: response.header)
    }

    /// What an answer with this status and these fields means for the file, decided once per
    /// attempt.
    private func decide(status: Int, header: (String) -> String?) throws {
        try lock.withLock {
            guard isUndecided else { return }
            isUndecided = false
            let range = ContentRange(header("Content-Range"))
            if let asked {
                if status == 206 {
                    guard let range, range.first == asked else {
                        throw SecureSessionError.invalidResponse(
                            "asked for the bytes from \(asked) on, the server sent \(header("Content-Range").map { "Content-Range: \($0)" } ?? "no Content-Range")"
                        )
                    }
                    expectedLength = range.completeLength
                    validator = Self.validator(status: status, header: header) ?? validator
                    return
                }
                if status == 416, let range, range.first == nil, range.completeLength == asked {
                    (wasComplete, expectedLength) = (true, asked)
                    return
                }
            }
            // A part nobody asked for is not the body: taking it for whole would leave a
            // truncated file that looks complete.
            if status == 206, isEnabled {
                throw SecureSessionError.invalidResponse("a 206 (partial content) answered a request for the whole body")
            }
            // A whole body (or an error's): from nothing. Continuing without a validator ends
            // here: the next attempt continues only what this answer validates.
            if file.length > 0 { try file.startOver() }
            holdsBodyStart = status == 200
            validator = Self.validator(status: status, header: header)
            continuesUnvalidated = false
            expectedLength = status == 200 ? header("Content-Length").flatMap { Int64($0) } : nil
        }
    }

    /// What makes sure a later range is of the same body (RFC 9110 §13.1.5): a strong `ETag`,
    /// else a `Last-Modified` at least a second before the answer's `Date` (a strong validator
    /// by §8.8.2.2); `nil` for a weak one or none, and for anything but a `200` or `206`.
    private static func validator(status: Int, header: (String) -> String?) -> String? {
        guard status == 200 || status == 206 else { return nil }
        if let tag = header("ETag")?.trimmingHTTPWhitespace, tag.hasPrefix("\""), tag.count >= 2, tag.hasSuffix("\"") {
            return tag
        }
        guard let modified = header("Last-Modified"), let modifiedDate = CookieDate.parse(modified),
            let date = header("Date").flatMap(CookieDate.parse), date.timeIntervalSince(modifiedDate) >= 1
        else { return nil }
        return modified
    }
}
