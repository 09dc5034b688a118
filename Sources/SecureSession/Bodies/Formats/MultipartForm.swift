import Foundation
import TransportSecurity

/// A `multipart/form-data` body (RFC 7578), as a browser sends a form with files and
/// AFNetworking's `multipartFormRequestWithMethod:…constructingBodyWithBlock:` builds one:
/// text fields and files, in order.
///
/// ```swift
/// var form = MultipartForm()
/// form.append("Quarterly report", name: "title")
/// form.append(pdf, name: "file", filename: "q3.pdf", contentType: "application/pdf")
/// form.appendFile(at: "/data/statements-2026.zip", name: "archive")   // streamed from disk
/// let response = try await session.send(.multipart(url: uploadURL, form: form))
/// ```
///
/// A file added with ``appendFile(at:name:filename:contentType:)`` is read part by part as the
/// request is sent, never held in memory (AFNetworking's `appendPartWithFileURL:name:error:`),
/// and its length counts in the `Content-Length`.
///
/// The boundary is chosen when the body is encoded, at random (128 bits) and absent from every
/// part held in memory, so no content can end a part early; a file is searched for it as it is
/// sent, and one that holds it fails the request instead of sending a broken form. Names and file
/// names are quoted as HTML does (`"`, CR and LF written `%22`, `%0D`, `%0A`), so none can add a
/// header or a parameter.
public struct MultipartForm: Sendable {
    /// One part: a form field or a file.
    public struct Part: Sendable, Equatable {
        /// The field name.
        public var name: String
        /// The file name, for a file.
        public var filename: String?
        /// The part's media type; `nil` for a text field.
        public var contentType: String?
        /// The content: bytes in memory, or a file read as the request is sent.
        public var content: Content
    }

    /// What a part holds.
    public enum Content: Sendable, Equatable {
        /// Bytes held in memory (a text field's UTF-8, or a file's bytes already read).
        case data(Data)
        /// The file at this path, read part by part as the request is sent.
        case file(path: String)
    }

    /// The parts, in order.
    public private(set) var parts: [Part] = []

    /// An empty form.
    public init() {}

    /// Adds a text field.
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8))))
    }

    /// Adds a file (or other binary content): `filename` is what the server is told the file
    /// is called, `contentType` its media type.
    public mutating func append(_ data: Data, name: String, filename: String?, contentType: String = "application/octet-stream") {
        parts.append(Part(name: name, filename: filename, contentType: contentType, content: .data(data)))
    }

    /// Adds the file at `path`, read part by part when the request is sent (never held in
    /// memory; opened afresh when a retry, a 307/308 redirect or an answered challenge sends
    /// the form again). A file that cannot be read then, or whose length changes while it is
    /// sent, fails the request with ``SecureSessionError/unreadableUpload(_:underlying:)`` before anything
    /// is sent or before the body ends.
    /// - Parameters:
    ///   - path: The file, read when the body is sent.
    ///   - name: The form field's name.
    ///   - filename: What the server is told the file is called; `nil` for the last component of
    ///     `path`.
    ///   - contentType: Its media type; `nil` for the one its extension suggests
    ///     (``mediaType(ofFileNamed:)``).
    public mutating func appendFile(at path: String, name: String, filename: String? = nil, contentType: String? = nil) {
        let filename = filename ?? (path as NSString).lastPathComponent
        parts.append(Part(name: name, filename: filename, contentType: contentType ?? Self.mediaType(ofFileNamed: filename), content: .file(path: path)))
    }

    /// Whether a part is a file read when the request is sent.
    public var hasFiles: Bool {
        parts.contains { if case .file = $0.content { true } else { false } }
    }

    /// The body held in memory and its `Content-Type` (`multipart/form-data; boundary=…`), the
    /// files of ``appendFile(at:name:filename:contentType:)`` read now (so the boundary is
    /// absent from them too).
    /// - Throws: ``SecureSessionError/unreadableUpload(_:underlying:)`` for a file that cannot be read.
    public func encoded() throws -> (contentType: String, body: Data) {
        var inMemory = self
        inMemory.parts = try parts.map { part in
            guard case .file(let path) = part.content else { return part }
            var read = part
            do {
                read.content = .data(try InputFile.read(path, limit: Int.max))
            } catch {
                throw SecureSessionError.unreadableUpload("\(path): \(error)")
            }
            return read
        }
        let (contentType, encoded) = inMemory.encodedParts()
        return (contentType, encoded.reduce(into: Data()) { body, part in
            if case .data(let data) = part.source { body.append(data) }
        })
    }

    /// The body as parts to send (``SecureRequest/bodyParts``) and its `Content-Type`: the
    /// form's text in memory, each file a part of its own that must not hold the boundary.
    func encodedParts() -> (contentType: String, parts: [RequestBodyPart]) {
        var boundary = Self.randomBoundary()
        while parts.contains(where: { if case .data(let data) = $0.content { data.range(of: Data(boundary.utf8)) != nil } else { false } }) {
            boundary = Self.randomBoundary()
        }
        var encoded: [RequestBodyPart] = []
        var text = Data()
        for part in parts {
            var disposition = "form-data; name=\"\(Self.quoted(part.name))\""
            if let filename = part.filename { disposition += "; filename=\"\(Self.quoted(filename))\"" }
            var head = "--\(boundary)\r\nContent-Disposition: \(disposition)\r\n"
            if let contentType = part.contentType { head += "Content-Type: \(Self.headerSafe(contentType))\r\n" }
            text.append(Data((head + "\r\n").utf8))
            switch part.content {
            case .data(let data):
                text.append(data)
            case .file(let path):
                encoded.append(.data(text))
                encoded.append(RequestBodyPart(.file(path: path), forbidden: Data(boundary.utf8)))
                text = Data()
            }
            text.append(Data("\r\n".utf8))
        }
        text.append(Data("--\(boundary)--\r\n".utf8))
        encoded.append(.data(text))
        return ("multipart/form-data; boundary=\(boundary)", encoded)
    }

    /// Why a file holding its form's boundary is not sent.
    static func holdsBoundary(_ path: String) -> String {
        "\(path) holds the multipart form's boundary, which would end its part early (make the request again for another boundary)"
    }

    /// The media type curl and browsers send for a file with this name's extension (compared
    /// without case); `application/octet-stream` for any other.
    public static func mediaType(ofFileNamed name: String) -> String {
        let types = [
            "txt": "text/plain", "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
            "json": "application/json", "xml": "application/xml", "pdf": "application/pdf", "zip": "application/zip",
            "gz": "application/gzip", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
            "svg": "image/svg+xml", "pem": "application/x-pem-file", "der": "application/pkix-cert", "p12": "application/x-pkcs12",
        ]
        return types[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
    }

    /// A boundary of 32 random hexadecimal digits after a fixed prefix.
    private static func randomBoundary() -> String {
        "TransportSecurity-" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// A name or file name inside quotes: `"`, CR and LF percent-encoded, as HTML does.
    static func quoted(_ text: String) -> String {
        // By Unicode scalar: a quote followed by a combining mark is one Character (which
        // `replacingOccurrences` would pass over) but still a quote byte to the server.
        text.replacingScalars { scalar in
            switch scalar {
            case "\"": return "%22"
            case "\r": return "%0D"
            case "\n": return "%0A"
            default: return nil
            }
        }
    }

    /// A media type with any CR or LF removed, so it stays one header field.
    private static func headerSafe(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }
}
