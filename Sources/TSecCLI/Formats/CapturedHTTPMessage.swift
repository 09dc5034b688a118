import Foundation
import HTTPMessageSignatures
import NIOCore
import NIOEmbedded
import NIOHTTP1
import SecureSession

/// An HTTP/1.1 message saved as text (start line, fields, an empty line, the body framed by
/// `Content-Length` or chunked), read with swift-nio's HTTP parser into what signatures see:
/// `tsec verify-signature`'s input. Lines may end with LF alone (as an editor saves them).
enum CapturedHTTPMessage {
    /// Why a saved message cannot be read.
    struct Unreadable: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// The message in `bytes`: a request (its URL from `scheme`, its `Host` field and its
    /// target) or a response (answering `request`).
    static func read(_ bytes: Data, scheme: String, answering request: HTTPSignatureMessage? = nil) throws -> HTTPSignatureMessage {
        let normalized = withCRLFHead(bytes)
        if normalized.starts(with: Data("HTTP/".utf8)) {
            return try readResponse(normalized, answering: request)
        }
        return try readRequest(normalized, scheme: scheme)
    }

    private static func readRequest(_ bytes: Data, scheme: String) throws -> HTTPSignatureMessage {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
        defer { _ = try? channel.finish() }
        let parts: [HTTPServerRequestPart] = try decode(bytes, through: channel)
        guard case .head(let head)? = parts.first else { throw Unreadable(reason: "no request line and fields") }
        guard let host = head.headers.first(name: "Host") else { throw Unreadable(reason: "the request has no Host field, so its URL is not known") }
        guard let url = URL(string: "\(scheme)://\(host)\(head.uri)") else {
            throw Unreadable(reason: "'\(scheme)://\(host)\(head.uri)' is not a URL")
        }
        return .request(method: head.method.rawValue, url: url, headers: head.headers.map { ($0.name, $0.value) }, body: body(of: parts))
    }

    private static func readResponse(_ bytes: Data, answering request: HTTPSignatureMessage?) throws -> HTTPSignatureMessage {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        try channel.pipeline.syncOperations.addHTTPClientHandlers()
        // The response decoder pairs each response with a request sent (a HEAD has no body).
        let method = NIOHTTP1.HTTPMethod(rawValue: request?.method ?? "GET")
        try channel.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: method, uri: "/")))
        try channel.writeOutbound(HTTPClientRequestPart.end(nil))
        let parts: [HTTPClientResponsePart] = try decode(bytes, through: channel)
        guard case .head(let head)? = parts.first else { throw Unreadable(reason: "no status line and fields") }
        return .response(statusCode: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, body: body(of: parts), answering: request)
    }

    /// The parts swift-nio's decoder makes of `bytes`, the input ended as a closed connection
    /// ends it (a body without a length runs to the end).
    private static func decode<Part>(_ bytes: Data, through channel: EmbeddedChannel) throws -> [Part] {
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
            channel.pipeline.fireChannelInactive()
        } catch {
            throw Unreadable(reason: "not an HTTP/1.1 message: \(error)")
        }
        var parts: [Part] = []
        while let part = try channel.readInbound(as: Part.self) { parts.append(part) }
        return parts
    }

    private static func body<Head>(of parts: [HTTPPart<Head, ByteBuffer>]) -> Data {
        parts.reduce(into: Data()) { if case .body(let buffer) = $1 { $0.append(contentsOf: buffer.readableBytesView) } }
    }

    /// The head (up to the first empty line) with bare LFs made CRLFs; the body as it is.
    private static func withCRLFHead(_ bytes: Data) -> Data {
        let text = Array(bytes)
        guard let bodyStart = bodyStart(in: text) else { return bytes }
        var head: [UInt8] = []
        for (index, byte) in text[..<bodyStart].enumerated() {
            if byte == 0x0A, index == 0 || text[index - 1] != 0x0D { head.append(0x0D) }
            head.append(byte)
        }
        return Data(head + text[bodyStart...])
    }

    /// Where the body starts: after the first `\n\n` or `\r\n\r\n`.
    private static func bodyStart(in bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }
}
