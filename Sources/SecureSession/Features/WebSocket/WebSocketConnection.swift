import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// The frames of one upgraded connection, behind a ``SecureWebSocket``: sending (masked),
/// reading (pings answered, close frames handled), and the closing handshake's state.
///
/// `@unchecked Sendable`: the inbound iterator is touched only by the one reader
/// ``claimReader()`` admits; the rest is behind a lock or Sendable itself.
final class WebSocketConnection: @unchecked Sendable {
    private struct State {
        var isReaderClaimed = false
        var closeSent: WebSocketClose?
        var closeReceived: WebSocketClose?
        var hasEnded = false
    }

    /// Where frames are written, each send waiting until the socket took its frame (NIO's async
    /// outbound writer returns once a frame is queued for the event loop, so a sender faster than
    /// the connection would pile messages up in memory).
    private let channel: any Channel
    private var frames: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
    private let state = NIOLockedValueBox(State())
    private let maximumMessageSize: Int
    /// The WebSocket's URL, in errors.
    private let name: String

    init(inbound: NIOAsyncChannelInboundStream<WebSocketFrame>, channel: any Channel, maximumMessageSize: Int, name: String) {
        self.channel = channel
        self.frames = inbound.makeAsyncIterator()
        self.maximumMessageSize = maximumMessageSize
        self.name = name
    }

    /// Whether the caller is the first to read (and so the one reader).
    func claimReader() -> Bool {
        state.withLockedValue { state in
            defer { state.isReaderClaimed = true }
            return !state.isReaderClaimed
        }
    }

    var closeReceived: WebSocketClose? { state.withLockedValue { $0.closeReceived } }

    func send(_ opcode: WebSocketOpcode, _ data: ByteBuffer) async throws {
        if let sent = state.withLockedValue({ $0.closeSent }) {
            throw SecureSessionError.invalidRequest("\(name): the WebSocket is closing (close \(sent) sent): no message may follow")
        }
        try await write(opcode, data)
    }

    /// Sends `close` unless a close was sent already (then nothing).
    func close(_ close: WebSocketClose) async throws {
        if let problem = Self.problem(with: close) { throw SecureSessionError.invalidRequest("\(name): \(problem)") }
        let isFirst = state.withLockedValue { state in
            defer { if state.closeSent == nil { state.closeSent = close } }
            return state.closeSent == nil
        }
        guard isFirst else { return }
        var payload = ByteBuffer()
        payload.writeInteger(close.code)
        payload.writeString(close.reason)
        guard Task.isCancelled else { return try await write(.connectionClose, payload) }
        // A cancelled task's writes fail at once: the close still goes, from a task of its own.
        let payloadToSend = payload
        try await Task { try await self.write(.connectionClose, payloadToSend) }.value
    }

    /// Why a client may not send `close` (RFC 6455 §7.4): a code reserved or unassigned, a
    /// reason over 123 bytes. `nil` when it may.
    static func problem(with close: WebSocketClose) -> String? {
        let allowed = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011].contains(close.code) || (3000...4999).contains(close.code)
        guard allowed else { return "a client may not close with the status code \(close.code) (1000–1003, 1007–1011 or 3000–4999)" }
        guard close.reason.utf8.count <= 123 else { return "a close reason takes at most 123 bytes of UTF-8, not \(close.reason.utf8.count)" }
        return nil
    }

    /// The next text or binary message; `nil` after the server's close frame.
    func nextMessage() async throws -> WebSocketMessage? {
        guard !state.withLockedValue({ $0.hasEnded }) else { return nil }
        while true {
            let frame: WebSocketFrame?
            do {
                frame = try await frames.next()
            } catch {
                throw await fail(error)
            }
            guard let frame else {
                // The reading task's cancellation ends the frames too.
                if Task.isCancelled {
                    await end(closing: 1001)
                    throw SecureSessionError.cancelled
                }
                state.withLockedValue { $0.hasEnded = true }
                throw SecureSessionError.connectionFailed("\(name): the connection ended without a WebSocket close frame (1006)")
            }
            switch frame.opcode {
            case .text:
                guard let text = String(validating: frame.unmaskedData.readableBytesView, as: UTF8.self) else {
                    throw await fail(closing: 1007, "the server sent a text message that is not UTF-8")
                }
                return .text(text)
            case .binary:
                return .binary(Array(frame.unmaskedData.readableBytesView))
            case .ping:
                try? await write(.pong, frame.unmaskedData)
            case .connectionClose:
                return try await received(closeFrame: frame.unmaskedData)
            default:
                continue  // pongs; continuations come joined
            }
        }
    }

    /// Takes the server's close frame: its code and reason kept, the close answered with the
    /// same code if the client sent none; the messages end.
    private func received(closeFrame: ByteBuffer) async throws -> WebSocketMessage? {
        var payload = closeFrame
        let close: WebSocketClose
        if payload.readableBytes == 0 {
            close = WebSocketClose(code: 1005)
        } else if let code = payload.readInteger(as: UInt16.self),
                  let reason = String(validating: payload.readableBytesView, as: UTF8.self)
        {
            close = WebSocketClose(code: code, reason: reason)
        } else {
            throw await fail(closing: 1002, "the server sent a malformed close frame")
        }
        state.withLockedValue {
            $0.closeReceived = close
            $0.hasEnded = true
        }
        let answer = close.code == 1005 || Self.problem(with: close) != nil ? WebSocketClose(code: 1000) : WebSocketClose(code: close.code)
        try? await self.close(answer)
        return nil
    }

    /// The error a failed read ends the messages with, after closing with the status that fits.
    private func fail(_ error: any Error) async -> SecureSessionError {
        switch error {
        case NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge, NIOWebSocketError.invalidFrameLength:
            await end(closing: 1009)
            return .responseTooLarge(limit: maximumMessageSize)
        case let masked as MaskedFrameGuard.MaskedFrame:
            return await fail(closing: 1002, masked.description)
        case is NIOWebSocketError, is NIOWebSocketFrameAggregator.Error:
            return await fail(closing: 1002, "the server broke the WebSocket protocol (\(error))")
        case is CancellationError:
            await end(closing: 1001)
            return .cancelled
        default:
            state.withLockedValue { $0.hasEnded = true }
            return .connectionFailed("\(name): \(error)")
        }
    }

    /// Ends the messages, closing with `code`, and answers the error that says why.
    private func fail(closing code: UInt16, _ reason: String) async -> SecureSessionError {
        await end(closing: code)
        return .invalidResponse("\(name): \(reason) (closed with \(code))")
    }

    /// Ends the messages and sends a close with `code` (unless one was sent).
    private func end(closing code: UInt16) async {
        state.withLockedValue { $0.hasEnded = true }
        try? await close(WebSocketClose(code: code))
    }

    private func write(_ opcode: WebSocketOpcode, _ data: ByteBuffer) async throws {
        do {
            let written = channel.eventLoop.makePromise(of: Void.self)
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data), promise: written)
            try await written.futureResult.get()
        } catch {
            throw SecureSessionError.connectionFailed("\(name): \(error)")
        }
    }
}
