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
/// let response = try await session.send(.multipart(url: uploadURL, form: form))
/// ```
///
/// The boundary is chosen when the body is encoded, at random and absent from every part, so no
/// content can end a part early. Names and file names are quoted as HTML does (`"`, CR and LF
/// written `%22`, `%0D`, `%0A`), so none can add a header or a parameter.
public struct MultipartForm: Sendable {
    /// One part: a form field or a file.
    public struct Part: Sendable, Equatable {
        /// The field name.
        public var name: String
        /// The file name, for a file.
        public var filename: String?
        /// The part's media type; `nil` for a text field.
        public var contentType: String?
        /// The content.
        public var data: Data
    }

    /// The parts, in order.
    public private(set) var parts: [Part] = []

    /// An empty form.
    public init() {}

    /// Adds a text field.
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, data: Data(value.utf8)))
    }

    /// Adds a file (or other binary content): `filename` is what the server is told the file
    /// is called, `contentType` its media type.
    public mutating func append(_ data: Data, name: String, filename: String?, contentType: String = "application/octet-stream") {
        parts.append(Part(name: name, filename: filename, contentType: contentType, data: data))
    }

    /// The body and its `Content-Type` (`multipart/form-data; boundary=…`).
    public func encoded() -> (contentType: String, body: Data) {
        var boundary = Self.randomBoundary()
        while parts.contains(where: { $0.data.range(of: Data(boundary.utf8)) != nil }) { boundary = Self.randomBoundary() }
        var body = Data()
        for part in parts {
            var disposition = "form-data; name=\"\(Self.quoted(part.name))\""
            if let filename = part.filename { disposition += "; filename=\"\(Self.quoted(filename))\"" }
            var head = "--\(boundary)\r\nContent-Disposition: \(disposition)\r\n"
            if let contentType = part.contentType { head += "Content-Type: \(Self.headerSafe(contentType))\r\n" }
            body.append(Data((head + "\r\n").utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return ("multipart/form-data; boundary=\(boundary)", body)
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
