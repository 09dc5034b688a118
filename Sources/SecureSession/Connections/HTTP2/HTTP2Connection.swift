import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import TransportSecurity

/// One HTTP/2 connection, negotiated by ALPN: every request runs on a stream of its own, so
/// concurrent requests to one server share the connection (and its single TLS handshake and
/// trust decision). A request's deadline closes its stream (a `RST_STREAM`), never the streams
/// of the others. The server's streams limit is respected by swift-nio-http2, which holds new
/// streams back until one ends. After the server's `GOAWAY` the connection takes no new request
/// and closes as soon as it has no stream (some servers leave it open); otherwise it closes once it
/// has had no stream for the idle timeout. A request the server did not process
/// (its stream refused, or above the last stream the `GOAWAY` says was processed) fails with
/// ``RequestNotProcessed``, which the session sends again (without counting the try when the
/// server ended the connection gracefully after serving it: nginx does after `keepalive_requests`).
final class HTTP2Connection: HTTPConnection, Sendable {
    let key: ConnectionKey
    let trustDecision: TrustDecision?
    let establishment: ConnectionEstablishment
    private let channel: any Channel
    /// Opens request streams from any thread, without waiting.
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    /// Kept for the connection's life: the async view whose inbound side owns the server's
    /// streams (none come: push is refused).
    private let asyncMultiplexer: NIOHTTP2Handler.AsyncStreamMultiplexer<Void>
    private let goAway: GoAwayRecord
    private let probe: HTTP2LivenessProbe
    private let violations: HTTP2ViolationRecord
    /// How long a `PING` may wait for its acknowledgement (the session's connect timeout).
    private let probeTimeout: Duration
    private let closed = LockedFlag()
    /// The first error the channel met: why it closed, when it closed on its own.
    private let closingError: @Sendable () -> (any Error)?
    private let idleTimeout: Duration
    /// Whether each stream asks for and decodes compressed responses.
    private let decompression: ResponseDecompression
    private let activity = NIOLockedValueBox(Activity())

    private struct Activity {
        var openStreams = 0
        /// How many requests have started here.
        var streamsEverOpened = 0
        /// Since when no stream has been open; `nil` while one is.
        var idleSince: NIODeadline? = .now()
        var timerArmed = false
    }

    init(
        key: ConnectionKey,
        channel: any Channel,
        multiplexer: NIOHTTP2Handler.StreamMultiplexer,
        asyncMultiplexer: NIOHTTP2Handler.AsyncStreamMultiplexer<Void>,
        goAway: GoAwayRecord,
        probe: HTTP2LivenessProbe,
        violations: HTTP2ViolationRecord,
        probeTimeout: Duration,
        trustDecision: TrustDecision?,
        establishment: ConnectionEstablishment,
        idleTimeout: Duration,
        decompression: ResponseDecompression,
        closingError: @escaping @Sendable () -> (any Error)?
    ) {
        self.closingError = closingError
        self.key = key
        self.channel = channel
        self.multiplexer = multiplexer
        self.asyncMultiplexer = asyncMultiplexer
        self.goAway = goAway
        self.probe = probe
        self.violations = violations
        self.probeTimeout = probeTimeout
        self.trustDecision = trustDecision
        self.establishment = establishment
        self.idleTimeout = idleTimeout
        self.decompression = decompression
        armIdleTimer(in: .nanoseconds(idleTimeout.nanoseconds))
        goAway.whenServerGoesAway { [weak self] in self?.closeIfIdle() }
    }

    /// Closes the connection if no stream is open: after the server's `GOAWAY`, nothing more
    /// will come of it.
    private func closeIfIdle() {
        if activity.withLockedValue({ $0.openStreams == 0 }) { close() }
    }

    /// Whether a new request may open a stream here: open, and no `GOAWAY` from either side.
    var isUsable: Bool { !closed.isSet && !goAway.isGoingAway && channel.isActive }

    /// Completes when the connection has closed.
    var closeFuture: EventLoopFuture<Void> { channel.closeFuture }

    func execute(head: HTTPRequestHead, replayable: Bool, body: RequestBodySource?, mayWaitToContinue: Bool, closer: ConnectionCloser, sink: @escaping ResponseBodySink)
        async throws -> ExchangedResponse
    {
        // swift-nio-http2 holds a stream opened after the server's GOAWAY without failing it:
        // such a request must not start here (the pool's check ran a moment ago). Nothing of it
        // was sent: it goes on a new connection.
        guard isUsable else {
            if goAway.isGoingAway {
                throw RequestNotProcessed(
                    description: "\(key): the HTTP/2 connection is going away (GOAWAY); nothing was sent",
                    afterOthersWereServed: goAway.endedGracefullyAfterProcessing && activity.withLockedValue { $0.streamsEverOpened > 0 }
                )
            }
            throw ResponseReader.failure(SecureSessionError.connectionFailed("\(key): the HTTP/2 connection is closed"), on: key, closingError: closingError())
        }
        streamOpened()
        defer { streamClosed() }
        let isSecure = key.isSecure
        let decompression = decompression
        let bridge = StreamResponseBridge()
        // A body held in memory goes with the head; a file (or a body whose progress is
        // reported) is sent afterwards, part by part.
        let streamedBody: RequestBodySource? = body?.isStreamed == true ? body : nil
        let request: [HTTPClientRequestPart] = streamedBody == nil
            ? ResponseReader.parts(head: Self.withoutForbiddenFields(head), body: body)
            : [.head(Self.withoutForbiddenFields(head))]
        let opened = channel.eventLoop.makePromise(of: (any Channel).self)
        // The stream is made, and the request written, on the event loop; the task only waits
        // for the response.
        let resets = ServerResetWatcher()
        multiplexer.createStreamChannel(promise: opened) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(resets)
                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: isSecure ? .https : .http))
                try decompression.install(in: stream.pipeline.syncOperations)
                try stream.pipeline.syncOperations.addHandler(StreamExchangeHandler(request: request, bridge: bridge))
            }
        }
        let key = key
        opened.futureResult.whenFailure { error in
            bridge.finish(SecureSessionError.connectionFailed("\(key): no new HTTP/2 stream: \(error)"))
        }
        let handle = StreamHandle(stream: opened.futureResult, bridge: bridge) { [weak self] in self?.checkLiveness() }
        closer.track(handle)
        defer {
            closer.untrack(handle)
            // A stream whose response ended is closed already; one abandoned is reset.
            handle.close()
        }
        do {
            var responses = bridge
            if let streamedBody {
                // Each write waits until the stream has taken the part (HTTP/2 flow control).
                do {
                    let stream = try await opened.futureResult.get()
                    try await streamedBody.send { part in try await stream.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(part))).get() }
                    try await stream.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
                } catch {
                    let early = try await ResponseReader.answer(sentBefore: error, from: &responses, into: sink)
                    handle.exchangeEnded()
                    return ExchangedResponse(early, reusable: true)
                }
            }
            let read = try await ResponseReader.read(from: &responses, into: sink)
            handle.exchangeEnded()
            return ExchangedResponse(read, reusable: true)
        } catch {
            if probe.wentSilent {
                throw SecureSessionError.connectionFailed("\(key): the server did not answer a PING within \(probeTimeout); the HTTP/2 connection was closed")
            }
            // swift-nio-http2 closes a stream before what explains it reaches the connection's
            // records, in the same turn of the event loop: its finding of a broken rule, or the
            // GOAWAY that dropped the stream (the request is then known unprocessed). The next
            // turn has them.
            _ = try? await channel.eventLoop.submit {}.get()
            if let violation = violation(behind: error, serverReset: resets.serverReset) { throw violation }
            let failure = streamFailure(
                error,
                streamID: await Self.streamID(of: opened.futureResult),
                answered: bridge.hasDelivered,
                method: HTTPMethod(rawValue: head.method.rawValue),
                replayable: replayable
            )
            throw ResponseReader.failure(failure, on: key, closingError: closingError())
        }
    }

    /// The request's failure when the client's HTTP/2 handler ended its stream (a reset with an
    /// error code the server did not send) or the connection (its own `GOAWAY`) over something
    /// wrong in the server's frames, saying what; `nil` otherwise. A stream reset over its own
    /// response is an `invalidResponse`; a connection ended under it a `connectionFailed` (the
    /// request may have been sound, and an idempotent one goes again on a new connection).
    private func violation(behind error: any Error, serverReset: HTTP2ErrorCode?) -> SecureSessionError? {
        let clientReset = (error as? NIOHTTP2Errors.StreamClosed).flatMap { closed in
            closed.errorCode != .cancel && serverReset == nil ? closed.errorCode : nil
        }
        guard clientReset != nil || goAway.isEndedByClient else { return nil }
        let said = "\(key): the server broke HTTP/2's rules: "
        if let clientReset, let found = violations.takeStreamFinding() {
            return .invalidResponse("\(said)\(found); the client reset its stream (\(clientReset.rfcName))")
        }
        guard goAway.isEndedByClient, let found = violations.connectionFinding else { return nil }
        return .connectionFailed("\(said)\(found); the client ended the connection (GOAWAY)")
    }

    /// A request gave up on its stream: a `PING` unanswered within the probe timeout closes the
    /// connection (``HTTP2LivenessProbe``).
    private func checkLiveness() {
        guard !closed.isSet, channel.isActive else { return }
        probe.probe(channel, within: .nanoseconds(probeTimeout.nanoseconds)) { [weak self] in self?.close() }
    }

    /// Closes the connection and every stream on it.
    func close() {
        closed.set()
        channel.close(promise: nil)
    }

    /// `head` without the fields HTTP/2 forbids and swift-nio-http2 refuses rather than drops
    /// (RFC 9113 §8.2.2): `TE` other than `trailers`. (The other connection-specific fields,
    /// `Connection`, `Keep-Alive`, `Transfer-Encoding`, `Upgrade`, are dropped by the codec.)
    static func withoutForbiddenFields(_ head: HTTPRequestHead) -> HTTPRequestHead {
        guard head.headers.contains(name: "TE") else { return head }
        var head = head
        let kept = head.headers["TE"].filter { $0.trimmingHTTPWhitespace.lowercased() == "trailers" }
        head.headers.remove(name: "TE")
        if !kept.isEmpty { head.headers.add(name: "TE", value: "trailers") }
        return head
    }

    /// A stream that closed before its response ended, in words: HTTP/1.1 required (the stream
    /// reset, or the connection ended, with `HTTP_1_1_REQUIRED` before any answer); not processed
    /// by the server (refused; above the last stream processed that its `GOAWAY` names; or never
    /// sent, its connection having ended before the stream was given an ID), or reset.
    ///
    /// swift-nio-http2 servers answer a client they take for an attacker (many resets) with a
    /// `GOAWAY` naming stream 0 whatever they processed: after a `GOAWAY` with an error code,
    /// only a request that may be repeated anyway counts as unprocessed.
    private func streamFailure(_ error: any Error, streamID: HTTP2StreamID?, answered: Bool, method: HTTPMethod, replayable: Bool) -> any Error {
        let reset = error as? NIOHTTP2Errors.StreamClosed
        if !answered, reset?.errorCode == .http11Required {
            return HTTP1Required(description: "\(key): the server reset the HTTP/2 stream with HTTP_1_1_REQUIRED: it requires HTTP/1.1 for this request")
        }
        // A connection ended so: a request its GOAWAY may say was processed goes again only if
        // it may be repeated anyway.
        let stream = reset?.streamID ?? streamID
        let unprocessedByGoAway = stream.map({ goAway.serverGoAway(above: $0) != nil }) ?? true
        if !answered, Self.isConnectionLoss(error), goAway.serverErrorCode == .http11Required, replayable || unprocessedByGoAway {
            return HTTP1Required(description: "\(key): the server ended the HTTP/2 connection (GOAWAY) with HTTP_1_1_REQUIRED: it requires HTTP/1.1")
        }
        if reset?.errorCode == .refusedStream {
            return RequestNotProcessed(description: "\(key): the server refused the HTTP/2 stream (REFUSED_STREAM)")
        }
        if !answered, Self.isConnectionLoss(error), let unprocessed = unprocessedFailure(streamID: stream, method: method, replayable: replayable) {
            return unprocessed
        }
        guard let reset else { return error }
        return SecureSessionError.connectionFailed("\(key): the server reset the HTTP/2 stream (\(reset.errorCode.rfcName))")
    }

    /// The failure of a request whose stream or connection ended before any answer when the
    /// server never saw it: never sent (no stream ID), or above the last stream the server's
    /// `GOAWAY` says it processed; `nil` when the server may have processed it.
    private func unprocessedFailure(streamID: HTTP2StreamID?, method: HTTPMethod, replayable: Bool) -> (any Error)? {
        guard let streamID else {
            return RequestNotProcessed(
                description: "\(key): the HTTP/2 connection ended before the request's stream was sent",
                afterOthersWereServed: goAway.endedGracefullyAfterProcessing
            )
        }
        guard let serverGoAway = goAway.serverGoAway(above: streamID) else { return nil }
        let said = "the server's GOAWAY (\(serverGoAway.errorCode.rfcName)) says it processed streams up to \(serverGoAway.lastProcessed), not this one (\(streamID))"
        guard serverGoAway.errorCode == .noError || replayable else {
            return SecureSessionError.connectionFailed("\(key): \(said); a \(method) without an idempotency key is not sent again after a GOAWAY with an error code")
        }
        // The stream is above the last one processed, so stream 1 was opened, and processed when
        // the GOAWAY says so.
        return RequestNotProcessed(description: "\(key): \(said)", afterOthersWereServed: goAway.endedGracefullyAfterProcessing)
    }

    /// Whether `error` says the stream or its connection ended under the request (a reset, a
    /// write refused on a connection going away or gone, the stream's channel closing), rather
    /// than something about a response or the request's own deadline.
    private static func isConnectionLoss(_ error: any Error) -> Bool {
        switch error {
        case is NIOHTTP2Errors.StreamClosed, is NIOHTTP2Errors.IOOnClosedConnection, is NIOHTTP2Errors.CreatedStreamAfterGoaway, is ChannelError:
            return true
        default:
            return (error as? SecureSessionError)?.code == .connectionFailed
        }
    }

    /// The ID the request's stream was given; `nil` when it was never given one (swift-nio-http2
    /// gives it as the first frame leaves the stream: nothing of the request reached the
    /// connection) or never opened.
    private static func streamID(of stream: EventLoopFuture<any Channel>) async -> HTTP2StreamID? {
        guard let channel = try? await stream.get() else { return nil }
        return try? await channel.getOption(HTTP2StreamChannelOptions.streamID).get()
    }

    private func streamOpened() {
        activity.withLockedValue { state in
            state.openStreams += 1
            state.streamsEverOpened += 1
            state.idleSince = nil
        }
    }

    private func streamClosed() {
        let needsTimer: Bool = activity.withLockedValue { state in
            state.openStreams -= 1
            guard state.openStreams == 0 else { return false }
            if goAway.isGoingAway { return false }
            state.idleSince = .now()
            defer { state.timerArmed = true }
            return !state.timerArmed
        }
        if needsTimer { armIdleTimer(in: .nanoseconds(idleTimeout.nanoseconds)) }
        if goAway.isGoingAway { closeIfIdle() }
    }

    /// Closes the connection once it has had no open stream for the idle timeout; a timer per
    /// idle period at most, re-armed from the event loop while streams come and go.
    private func armIdleTimer(in delay: TimeAmount) {
        activity.withLockedValue { $0.timerArmed = true }
        channel.eventLoop.scheduleTask(in: delay) { [weak self] in
            guard let self, !self.closed.isSet else { return }
            let limit = TimeAmount.nanoseconds(self.idleTimeout.nanoseconds)
            let next: TimeAmount? = self.activity.withLockedValue { state in
                guard let since = state.idleSince else {
                    state.timerArmed = false
                    return nil
                }
                let idleFor = NIODeadline.now() - since
                return idleFor < limit ? limit - idleFor : .zero
            }
            switch next {
            case .zero?: self.close()
            case let remaining?: self.armIdleTimer(in: remaining)
            case nil: break
            }
        }
    }
}

/// One request's HTTP/2 stream, as its deadline sees it: closing it resets the stream alone
/// (once the stream exists) and ends the wait for its response; closing it while the response
/// was still awaited (the request gave up on it) calls `onAbandoned`.
private final class StreamHandle: ClosableConnection {
    let stream: EventLoopFuture<any Channel>
    let bridge: StreamResponseBridge
    let onAbandoned: @Sendable () -> Void

    init(stream: EventLoopFuture<any Channel>, bridge: StreamResponseBridge, onAbandoned: @escaping @Sendable () -> Void) {
        self.stream = stream
        self.bridge = bridge
        self.onAbandoned = onAbandoned
    }

    /// The task read the whole response (and sent the whole request): the stream was not given
    /// up on, whatever the bridge says when it is closed.
    private let ended = NIOLockedValueBox(false)

    func exchangeEnded() { ended.withLockedValue { $0 = true } }

    func close() {
        // The task that read the response's end closes the stream, sometimes before the event
        // loop has ended the bridge: that stream was not given up on. Taken for one, each sent
        // a liveness PING, and under load their acknowledgements tripped swift-nio-http2's flood
        // heuristic (200 control frames in 30 s), which ended a sound connection (the soak). A
        // task still sending its body when its deadline closes the stream did give up on it,
        // even if the response's end came already.
        if bridge.finish(SecureSessionError.connectionFailed("the HTTP/2 stream was closed")), !ended.withLockedValue({ $0 }) { onAbandoned() }
        stream.whenSuccess { $0.close(promise: nil) }
    }
}
