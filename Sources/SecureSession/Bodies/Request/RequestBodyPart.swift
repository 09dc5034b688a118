import Foundation

/// One part of a body sent from parts (``SecureRequest/bodyParts``): bytes held in memory, or a
/// file read part by part as it is sent, never held whole.
///
/// A multipart form with files becomes such a body (``MultipartForm/appendFile(at:name:filename:contentType:)``),
/// and so does any body that wraps a large file in a little text of its own: Google Drive's
/// `multipart/related` upload (JSON metadata, then the file), a JSON envelope around a file's
/// text.
///
/// ```swift
/// var request = SecureRequest(.post, url: uploadURL, headers: [("Content-Type", "multipart/related; boundary=b")])
/// request.bodyParts = [
///     .data(Data("--b\r\nContent-Type: application/json\r\n\r\n{\"name\":\"q3.pdf\"}\r\n--b\r\nContent-Type: application/pdf\r\n\r\n".utf8)),
///     .file("/data/q3.pdf"),
///     .data(Data("\r\n--b--\r\n".utf8)),
/// ]
/// ```
public struct RequestBodyPart: Sendable, Equatable {
    /// Where a part's bytes come from.
    public enum Source: Sendable, Equatable {
        /// Bytes held in memory.
        case data(Data)
        /// The file at this path, opened and measured afresh for every sending.
        case file(path: String)
    }

    /// Where the part's bytes come from.
    public let source: Source
    /// Bytes a file part must not hold (the multipart boundary of the form it is a part of,
    /// which would end its part early): finding them fails the sending.
    let forbidden: Data?

    init(_ source: Source, forbidden: Data? = nil) {
        self.source = source
        self.forbidden = forbidden
    }

    /// A part of bytes held in memory.
    public static func data(_ data: Data) -> RequestBodyPart {
        RequestBodyPart(.data(data))
    }

    /// A part read from the file at `path` as it is sent; its length, measured when the request
    /// is sent, counts in the `Content-Length`, and a file whose length changes meanwhile fails
    /// the request (``SecureSessionError/unreadableUpload(_:underlying:)``).
    public static func file(_ path: String) -> RequestBodyPart {
        RequestBodyPart(.file(path: path))
    }
}
