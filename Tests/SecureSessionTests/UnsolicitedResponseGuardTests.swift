import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
import TransportSecurity

@testable import SecureSession

@Suite("An HTTP/1.1 connection gives up answers nobody asked for")
struct UnsolicitedResponseGuardTests {
    private struct Failure: Error {}

    private func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(UnsolicitedResponseGuard())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return channel
    }

    private func sendRequest(on channel: EmbeddedChannel) throws {
        try channel.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")))
        try channel.writeOutbound(HTTPClientRequestPart.end(nil))
    }

    private let head = HTTPClientResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok))

    @Test("each request's response goes through, errors while a response is owed too; a part or an error when none is owed closes the connection and goes no further")
    func owedResponses() throws {
        let channel = try channel()
        try sendRequest(on: channel)
        try channel.writeInbound(head)
        try channel.writeInbound(HTTPClientResponsePart.end(nil))
        #expect(try channel.readInbound(as: HTTPClientResponsePart.self) == head)
        #expect(try channel.readInbound(as: HTTPClientResponsePart.self) == .end(nil))
        #expect(channel.isActive)

        // A second request, failing while its response is owed: the error reaches the request.
        try sendRequest(on: channel)
        channel.pipeline.fireErrorCaught(Failure())
        #expect(throws: Failure.self) { try channel.throwIfErrorCaught() }
        try channel.writeInbound(head)
        try channel.writeInbound(HTTPClientResponsePart.end(nil))
        _ = try channel.readInbound(as: HTTPClientResponsePart.self)
        _ = try channel.readInbound(as: HTTPClientResponsePart.self)

        // Nothing owed now: a response head closes the connection and is not passed on.
        try channel.writeInbound(head)
        #expect(try channel.readInbound(as: HTTPClientResponsePart.self) == nil)
        #expect(!channel.isActive)
    }

    @Test("an error while idle (swift-nio's unsolicitedResponse) closes the connection and is not passed on")
    func errorWhileIdle() throws {
        let channel = try channel()
        channel.pipeline.fireErrorCaught(NIOHTTPDecoderError.unsolicitedResponse)
        try channel.throwIfErrorCaught()
        #expect(!channel.isActive)
    }

    @Test("swift-nio's unsolicitedResponse, should it reach a request, reads as an invalid response in words")
    func unsolicitedResponseInWords() {
        let key = ConnectionKey(
            isSecure: false, host: "example.com", port: 80, identity: nil,
            evaluator: AnyServerTrustEvaluator(SecurityPolicy.default), handler: nil, isSingleUse: false
        )
        let failure = ResponseReader.failure(NIOHTTPDecoderError.unsolicitedResponse, on: key)
        guard case .invalidResponse(let detail)? = failure.sessionFailureReason else {
            Issue.record("\(failure)")
            return
        }
        #expect(detail.contains("a response no request had asked for"))
    }
}
