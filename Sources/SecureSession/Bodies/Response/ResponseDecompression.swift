import NIOCore
import NIOHTTP1
import NIOHTTPCompression

/// Whether the session asks for compressed responses and decodes them (`Accept-Encoding:
/// deflate, gzip`, decoded by swift-nio-extras' `NIOHTTPResponseDecompressor`), as URLSession
/// and curl's `--compressed` do.
public enum ResponseDecompression: Sendable, Hashable {
    /// Nothing is asked for; a body arrives as the server sent it.
    case disabled
    /// Compressed bodies are asked for and decoded. A body that inflates to more than
    /// `maximumRatio` times its compressed size fails the request (a decompression bomb); the
    /// session's body size limits apply to the decoded bytes.
    case enabled(maximumRatio: Int = 100)

    /// Puts the decoder, and the handler that makes the decoded response's head true, into
    /// `pipeline` (after the HTTP/1 codec); nothing when disabled.
    func install(in pipeline: ChannelPipeline.SynchronousOperations) throws {
        guard case .enabled(let maximumRatio) = self else { return }
        try pipeline.addHandler(BodilessResponseGuard())
        try pipeline.addHandler(NIOHTTPResponseDecompressor(limit: .ratio(max(1, maximumRatio))))
        try pipeline.addHandler(DecodedHeadHandler())
    }

    /// Where ``BodilessResponseGuard`` keeps the `Content-Encoding` of a response that has no
    /// body, out of the decoder's sight.
    static let heldEncodingField = "X-TransportSecurity-Held-Content-Encoding"
}

/// Before the decoder: a response that has no body (to a HEAD request, a 1xx, 204 or 304) may
/// still name its resource's encoding, and the decoder would take its empty body for a truncated
/// one. Its `Content-Encoding` is held aside for the decoder's passage and put back after it.
private final class BodilessResponseGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    /// The methods of the requests sent whose final responses have not arrived, oldest first.
    private var methods: [NIOHTTP1.HTTPMethod] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head(let head) = unwrapOutboundIn(data) { methods.append(head.method) }
        context.write(data, promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let code = head.status.code
        let isFinal = code >= 200
        let method = methods.first
        if isFinal, !methods.isEmpty { methods.removeFirst() }
        let bodiless = method == .HEAD || code < 200 || code == 204 || code == 304
        guard bodiless, let encoding = head.headers.first(name: "Content-Encoding") else {
            context.fireChannelRead(data)
            return
        }
        head.headers.remove(name: "Content-Encoding")
        head.headers.add(name: ResponseDecompression.heldEncodingField, value: encoding)
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}

/// After the decoder: a response whose body was decoded no longer says it is encoded, nor
/// carries the compressed length (`Content-Encoding` and `Content-Length` removed), so that the
/// head describes the body the caller gets.
private final class DecodedHeadHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if let held = head.headers.first(name: ResponseDecompression.heldEncodingField) {
            // No body was decoded: the head stays as the server sent it.
            head.headers.remove(name: ResponseDecompression.heldEncodingField)
            head.headers.add(name: "Content-Encoding", value: held)
        } else if let encoding = head.headers.first(name: "Content-Encoding")?.lowercased(), ["gzip", "deflate"].contains(encoding) {
            head.headers.remove(name: "Content-Encoding")
            head.headers.remove(name: "Content-Length")
        } else {
            context.fireChannelRead(data)
            return
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
