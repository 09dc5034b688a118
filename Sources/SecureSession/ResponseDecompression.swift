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
        try pipeline.addHandler(NIOHTTPResponseDecompressor(limit: .ratio(max(1, maximumRatio))))
        try pipeline.addHandler(DecodedHeadHandler())
    }
}

/// After the decoder: a response whose body was decoded no longer says it is encoded, nor
/// carries the compressed length (`Content-Encoding` and `Content-Length` removed), so that the
/// head describes the body the caller gets.
private final class DecodedHeadHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data),
            let encoding = head.headers.first(name: "Content-Encoding")?.lowercased(), ["gzip", "deflate"].contains(encoding)
        else {
            context.fireChannelRead(data)
            return
        }
        head.headers.remove(name: "Content-Encoding")
        head.headers.remove(name: "Content-Length")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
