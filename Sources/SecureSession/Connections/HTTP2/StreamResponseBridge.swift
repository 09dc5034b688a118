import Foundation
import NIOCore
import NIOHTTP1

/// Carries the response of one HTTP/2 stream from its channel (the event loop) to the request's
/// task, with backpressure: while ``highWatermark`` parts wait unread the stream stops reading,
/// so HTTP/2 flow control holds the server back; it reads again once the task has taken them
/// down to ``lowWatermark``. The task waits once per part that has not arrived yet, and never
/// for the stream to open or close (what `NIOAsyncChannel` would add to every request).
final class StreamResponseBridge: AsyncIteratorProtocol, @unchecked Sendable {
    static let highWatermark = 16
    static let lowWatermark = 4

    private let lock = NSLock()
    private var buffered: [HTTPClientResponsePart] = []
    private var start = 0
    private var waiting: CheckedContinuation<HTTPClientResponsePart?, any Error>?
    private var ending: Result<Void, any Error>?
    private var paused = false
    private var resumeReading: (@Sendable () -> Void)?
    private var delivered = false

    /// Whether any part of the response arrived: the server processed the request.
    var hasDelivered: Bool { lock.withLock { delivered } }

    /// The event loop side: a part arrived. Returns whether the stream may read more.
    func deliver(_ part: HTTPClientResponsePart) -> Bool {
        let (resumed, keepReading): (CheckedContinuation<HTTPClientResponsePart?, any Error>?, Bool) = lock.withLock {
            delivered = true
            guard ending == nil else { return (nil, false) }
            if let waiting {
                self.waiting = nil
                return (waiting, true)
            }
            buffered.append(part)
            // Only the task ends a pause (at the low watermark): a part that was already on its
            // way when the stream paused must not end it, or nobody would tell the stream to
            // read again and the response would stall.
            if buffered.count - start >= Self.highWatermark { paused = true }
            return (nil, !paused)
        }
        resumed?.resume(returning: part)
        return keepReading
    }

    /// The event loop side: how to make the stream read again after a pause. Not kept when the
    /// bridge has already ended (a request that gave up before its stream opened): see
    /// ``finish(_:)``.
    func onResume(_ resume: @escaping @Sendable () -> Void) {
        lock.withLock {
            if ending == nil { resumeReading = resume }
        }
    }

    /// No more parts: the stream ended (`nil`, after its last part) or failed. Only the first
    /// ending counts. Returns whether this call ended it.
    ///
    /// The way to make the stream read again goes: a stream that has ended reads no more, and
    /// the closure holds the stream's handler, which holds this bridge (a cycle that kept every
    /// HTTP/2 stream's channel alive, about 1 KB per request).
    @discardableResult
    func finish(_ error: (any Error)?) -> Bool {
        let (ended, resumed): (Bool, CheckedContinuation<HTTPClientResponsePart?, any Error>?) = lock.withLock {
            guard ending == nil else { return (false, nil) }
            ending = error.map { .failure($0) } ?? .success(())
            resumeReading = nil
            defer { waiting = nil }
            return (true, waiting)
        }
        if let error { resumed?.resume(throwing: error) } else { resumed?.resume(returning: nil) }
        return ended
    }

    /// What the task gets now: a buffered part (with the way to resume reading when taking it
    /// brought the buffer down to the low watermark), or the ending.
    private enum Ready {
        case part(HTTPClientResponsePart, resume: (@Sendable () -> Void)?)
        case ended(Result<Void, any Error>)
    }

    /// The task side: the next part, `nil` after the last one.
    func next() async throws -> HTTPClientResponsePart? {
        if let ready = lock.withLock({ takeReady() }) { return try Self.hand(ready) }
        return try await withCheckedThrowingContinuation { continuation in
            let ready: Ready? = lock.withLock {
                let ready = takeReady()
                if ready == nil { waiting = continuation }
                return ready
            }
            if let ready { continuation.resume(with: Result { try Self.hand(ready) }) }
        }
    }

    /// Takes the next buffered part, or the ending; `nil` when the task must wait. Called with
    /// the lock held.
    private func takeReady() -> Ready? {
        if start < buffered.count {
            let part = buffered[start]
            start += 1
            if start == buffered.count {
                buffered.removeAll(keepingCapacity: true)
                start = 0
            }
            guard paused, buffered.count - start <= Self.lowWatermark else { return .part(part, resume: nil) }
            paused = false
            return .part(part, resume: resumeReading)
        }
        return ending.map { .ended($0) }
    }

    /// The part itself (resuming the stream's reads when it is time), `nil` after a clean
    /// ending, or the failure.
    private static func hand(_ ready: Ready) throws -> HTTPClientResponsePart? {
        switch ready {
        case .part(let part, let resume):
            resume?()
            return part
        case .ended(let ending):
            try ending.get()
            return nil
        }
    }
}

/// The last handler of an HTTP/2 request stream: writes the request as the stream opens, hands
/// each response part to the ``StreamResponseBridge`` and holds the stream's reads while the
/// bridge is full. A head loses the `transfer-encoding: chunked` swift-nio-http2 adds to it for
/// HTTP/1's sake: no HTTP/2 server sends that field (it is forbidden there), and the caller sees
/// the fields the server sent.
final class StreamExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTPClientRequestPart

    private let request: [HTTPClientRequestPart]
    private let bridge: StreamResponseBridge
    private var mayRead = true
    private var readHeld = false

    init(request: [HTTPClientRequestPart], bridge: StreamResponseBridge) {
        self.request = request
        self.bridge = bridge
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        bridge.onResume {
            loop.execute {
                let (handler, context) = loopBound.value
                handler.mayRead = true
                if handler.readHeld {
                    handler.readHeld = false
                    context.read()
                }
            }
        }
        // A stream the connection will not start (it is going away: swift-nio-http2 refuses the
        // head with `CreatedStreamAfterGoaway`, and holds the stream until the connection closes)
        // ends its request now, which goes again on a new connection.
        guard let head = request.first else { return }
        let headWritten = loop.makePromise(of: Void.self)
        let bridge = bridge
        let stream = context.channel
        headWritten.futureResult.whenFailure { error in
            bridge.finish(error)
            stream.close(promise: nil)
        }
        context.write(wrapOutboundOut(head), promise: headWritten)
        for part in request.dropFirst() { context.write(wrapOutboundOut(part), promise: nil) }
        context.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var part = unwrapInboundIn(data)
        if case .head(var head) = part, head.headers.contains(name: "transfer-encoding") {
            head.headers.remove(name: "transfer-encoding")
            part = .head(head)
        }
        if !bridge.deliver(part) { mayRead = false }
        if case .end = part { bridge.finish(nil) }
    }

    func read(context: ChannelHandlerContext) {
        if mayRead {
            context.read()
        } else {
            readHeld = true
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        bridge.finish(SecureSessionError.connectionFailed("the HTTP/2 stream closed before the response ended"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        bridge.finish(error)
        context.close(promise: nil)
    }
}
