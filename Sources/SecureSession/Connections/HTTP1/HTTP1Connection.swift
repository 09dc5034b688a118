import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import TransportSecurity
import TransportSecurityNIO

/// One HTTP/1.1 connection (TLS or cleartext), kept alive between requests; ``Connector`` makes
/// it.
///
/// A holder task owns the channel through `NIOAsyncChannel.executeThenClose` and keeps it open
/// until the connection closes; the request that has leased the connection (the pool leases it
/// to one request at a time) writes to it and reads its response itself, with no task between.
final class HTTP1Connection: HTTPConnection, Sendable {
    let key: ConnectionKey
    /// The decision that trusted the server (TLS connections).
    let trustDecision: TrustDecision?
    let establishment: ConnectionEstablishment
    /// Where the server's requests for a client certificate go, when a challenge handler answers
    /// them.
    let certificateChallenge: ClientCertificateChallenge?
    private let channel: any Channel
    private let exchanger: Exchanger
    private let closed = LockedFlag()
    private let idleState = NIOLockedValueBox(IdleState())
    /// The first error the channel met: why it closed, when it closed on its own.
    private let closingError: @Sendable () -> (any Error)?
    /// Where the server's closing of an idle connection is noted, and its limit read.
    private let idleLimits: ObservedIdleLimits?

    private struct IdleState {
        /// Since when the connection has waited in the pool; `nil` while in use.
        var idleSince: NIODeadline?
        /// When the idle timer armed last fires; `nil` when none is armed.
        var timerFiresAt: NIODeadline?
        /// Which timer is the armed one: an earlier timer finding another number here leaves
        /// the decision to that one.
        var timerNumber: UInt64 = 0
        /// How long the server keeps the connection idle, less a margin: from its last
        /// `Keep-Alive: timeout=N` (``KeepAliveHint``) or from what the session saw of it
        /// (``ObservedIdleLimits``), the shorter; `nil` when neither tells.
        var serverIdleLimit: Duration?

        /// Notes a new timer firing `delay` after `now`, replacing any other: its number and delay.
        mutating func arm(at now: NIODeadline, in delay: TimeAmount) -> (number: UInt64, delay: TimeAmount) {
            timerNumber &+= 1
            timerFiresAt = now + delay
            return (timerNumber, delay)
        }
    }

    private init(
        key: ConnectionKey,
        channel: any Channel,
        trustDecision: TrustDecision?,
        establishment: ConnectionEstablishment,
        certificateChallenge: ClientCertificateChallenge?,
        closingError: @escaping @Sendable () -> (any Error)?,
        idleLimits: ObservedIdleLimits?,
        outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>,
        inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>,
        expectContinue: ExpectContinue?,
        watcher: ContinueWatcher?
    ) {
        self.key = key
        self.channel = channel
        self.trustDecision = trustDecision
        self.establishment = establishment
        self.certificateChallenge = certificateChallenge
        self.closingError = closingError
        self.idleLimits = idleLimits
        self.exchanger = Exchanger(inbound: inbound, outbound: outbound, channel: channel, expectContinue: expectContinue, watcher: watcher)
    }

    /// Whether the connection can take another request.
    var isUsable: Bool { !closed.isSet && channel.isActive }

    /// Takes over a connected, negotiated channel: a holder task owns it through
    /// `executeThenClose` and hands its streams over, keeping them open until the channel closes.
    /// `closingError` tells why the channel closed, if an error closed it.
    static func start(
        key: ConnectionKey,
        channel asyncChannel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>,
        watcher: ContinueWatcher?,
        trustDecision: TrustDecision?,
        establishment: ConnectionEstablishment,
        expectContinue: ExpectContinue?,
        certificateChallenge: ClientCertificateChallenge?,
        closingError: @escaping @Sendable () -> (any Error)?,
        idleLimits: ObservedIdleLimits? = nil
    ) async throws -> HTTP1Connection {
        let handover = OnceAnswer<(NIOAsyncChannelInboundStream<HTTPClientResponsePart>, NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>)>()
        let channel = asyncChannel.channel
        Task {
            do {
                try await asyncChannel.executeThenClose { inbound, outbound in
                    handover.give(.success((inbound, outbound)))
                    try await channel.closeFuture.get()
                }
            } catch {
                handover.give(.failure(error))
            }
        }
        let (inbound, outbound) = try await handover.value
        let connection = HTTP1Connection(
            key: key,
            channel: channel,
            trustDecision: trustDecision,
            establishment: establishment,
            certificateChallenge: certificateChallenge,
            closingError: closingError,
            idleLimits: idleLimits,
            outbound: outbound,
            inbound: inbound,
            expectContinue: expectContinue,
            watcher: watcher
        )
        channel.closeFuture.whenComplete { [weak connection] _ in connection?.noteClosed() }
        return connection
    }

    /// Notes, when the server closed the connection while it waited in the pool, how long it had
    /// been idle (a connection the session closed, or one in use, teaches nothing).
    private func noteClosed() {
        guard !closed.isSet, let idleLimits, let since = idleState.withLockedValue({ $0.idleSince }) else { return }
        let idleFor = NIODeadline.now() - since
        idleLimits.noteClosedWhileIdle(key.server, after: .nanoseconds(idleFor.nanoseconds))
    }

    /// Sends a request and reads its response; the body goes to `sink` before this returns.
    /// Only the request that leased the connection calls this, one request at a time.
    func execute(head: HTTPRequestHead, replayable: Bool, body: RequestBodySource?, mayWaitToContinue: Bool, closer: ConnectionCloser, sink: @escaping ResponseBodySink)
        async throws -> ExchangedResponse
    {
        closer.track(self)
        defer { closer.untrack(self) }
        guard isUsable else {
            throw ResponseReader.failure(SecureSessionError.connectionFailed("\(key): the connection is closed"), on: key, closingError: closingError())
        }
        do {
            let (read, bodySent) = try await exchanger.exchange(head: head, body: body, mayWaitToContinue: mayWaitToContinue, into: sink)
            let response = read.head
            let said = KeepAliveHint(response.headers)?.clientIdleLimit
            let seen = idleLimits?.clientIdleLimit(for: key.server)
            let serverIdleLimit = said.map { limit in seen.map { min(limit, $0) } ?? limit } ?? seen
            idleState.withLockedValue { $0.serverIdleLimit = serverIdleLimit }
            // A server that keeps idle connections no longer than the margin gets no reuse; nor
            // does a request that said `Connection: close` (the server will close it).
            let reusable = !head.headers.namesConnectionClose && response.isKeepAlive && bodySent && serverIdleLimit.map { $0 > .zero } ?? true
            if !reusable { close() }
            return ExchangedResponse(read, reusable: reusable)
        } catch let refused as ExpectationRefused {
            close()
            throw refused
        } catch {
            close()
            throw ResponseReader.failure(error, on: key, closingError: closingError())
        }
    }

    /// Marks the connection idle: `expire` runs once it has been idle for `timeout`, or for the
    /// server's shorter limit (its `Keep-Alive` hint, or what the session saw of it). One timer
    /// per connection, armed at its first idle period and re-armed from its own event loop, so
    /// that returning a connection to the pool and leasing it again only take a lock (another
    /// timer is armed only when the server's limit shortened since).
    func markIdle(expiringAfter timeout: Duration, _ expire: @escaping @Sendable () -> Void) {
        let timer: (number: UInt64, delay: TimeAmount)? = idleState.withLockedValue { state in
            let now = NIODeadline.now()
            state.idleSince = now
            let limit = Self.idleLimit(timeout, state)
            if let firesAt = state.timerFiresAt, firesAt <= now + limit { return nil }
            return state.arm(at: now, in: limit)
        }
        if let timer { armIdleTimer(timer.number, in: timer.delay, timeout: timeout, expire) }
    }

    /// Marks the connection in use.
    func markInUse() {
        idleState.withLockedValue { $0.idleSince = nil }
    }

    /// The pool's idle limit, or the server's when it is shorter.
    private static func idleLimit(_ timeout: Duration, _ state: IdleState) -> TimeAmount {
        let limit = min(timeout, state.serverIdleLimit ?? timeout)
        return .nanoseconds(limit.nanoseconds)
    }

    /// What an idle timer found when it fired.
    private enum IdleTimerOutcome {
        /// A later timer replaced it.
        case replaced
        /// The connection has not been idle for the whole limit (or is leased): look again then.
        case rearm(UInt64, TimeAmount)
        /// Idle for the whole limit.
        case expired
    }

    private func armIdleTimer(_ number: UInt64, in delay: TimeAmount, timeout: Duration, _ expire: @escaping @Sendable () -> Void) {
        channel.eventLoop.scheduleTask(in: delay) { [weak self] in
            guard let self, self.isUsable else { return }
            let outcome: IdleTimerOutcome = self.idleState.withLockedValue { state in
                guard state.timerNumber == number, state.timerFiresAt != nil else { return .replaced }
                let now = NIODeadline.now()
                let limit = Self.idleLimit(timeout, state)
                guard let since = state.idleSince else {
                    let (number, delay) = state.arm(at: now, in: limit)
                    return .rearm(number, delay)
                }
                let idleFor = now - since
                if idleFor < limit {
                    let (number, delay) = state.arm(at: now, in: limit - idleFor)
                    return .rearm(number, delay)
                }
                // The next idle period arms a new timer should this one find the connection leased.
                state.timerFiresAt = nil
                return .expired
            }
            switch outcome {
            case .replaced: return
            case .rearm(let number, let delay): self.armIdleTimer(number, in: delay, timeout: timeout, expire)
            case .expired: expire()
            }
        }
    }

    /// Closes the connection; a request in flight fails.
    func close() {
        closed.set()
        channel.close(promise: nil)
    }
}

/// Writes requests to a connection and reads its responses, for one request at a time (the
/// pool's lease orders the uses, so the stream's iterator is never used concurrently).
private final class Exchanger: @unchecked Sendable {
    private let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    private var responses: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    private let channel: any Channel
    private let expectContinue: ExpectContinue?
    /// `nil` when bodies never wait for `100 Continue`.
    private let watcher: ContinueWatcher?

    init(
        inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>,
        outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>,
        channel: any Channel,
        expectContinue: ExpectContinue?,
        watcher: ContinueWatcher?
    ) {
        self.outbound = outbound
        self.responses = inbound.makeAsyncIterator()
        self.channel = channel
        self.expectContinue = expectContinue
        self.watcher = watcher
    }

    /// Sends the request (a file body, or one whose progress is reported, part by part, each
    /// write waiting for the connection to take it) and reads the response on this connection's streams; says whether the whole body
    /// was sent (a server may answer, a 413 or a 401, and close before taking all of it: that
    /// answer is the outcome, and the connection cannot be used again).
    func exchange(head: HTTPRequestHead, body: RequestBodySource?, mayWaitToContinue: Bool, into sink: ResponseBodySink) async throws -> (ReadResponse, bodySent: Bool) {
        // A large body asks first (the caller's own `Expect: 100-continue` is honoured too).
        let head = ExpectContinue.head(head, body: body, mayWaitToContinue: mayWaitToContinue, expectContinue: expectContinue)
        var goOn: EventLoopFuture<UInt?>?
        if mayWaitToContinue, body != nil, let expectContinue, let watcher,
            head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" })
        {
            goOn = watcher.arm(on: channel.eventLoop, timeout: expectContinue.timeout)
        }
        do {
            if body?.isStreamed == true || goOn != nil {
                // Written straight to the channel, at most 1 MiB of parts not yet taken by the
                // socket: the outbound writer's `write` returns once a part is queued for the
                // event loop, and a file read faster than the connection sends piled up there
                // (half a 512 MiB upload held in memory, measured).
                let inFlight = WritesInFlight(channel: channel)
                try await inFlight.write(.head(head))
                // Answered before the body (a challenge, a 413): that answer is the outcome, the
                // body never goes, and the connection is not used again. A 417 only says the
                // expectation is not understood on the way: the request goes again without it.
                if let goOn, let answered = try await goOn.get() {
                    if answered == 417 { throw ExpectationRefused() }
                    return (try await ResponseReader.read(from: &responses, into: sink), false)
                }
                try await body?.send { part in try await inFlight.write(.body(.byteBuffer(part))) }
                try await inFlight.write(.end(nil))
                try await inFlight.finish()
            } else {
                // Held in memory: the whole request in one write.
                try await outbound.write(contentsOf: ResponseReader.parts(head: head, body: body))
            }
        } catch {
            // Only when the server closed the connection under the write can an answer be
            // waiting; a write that fails on an open connection would wait for none. A refused
            // expectation is not an answer: the request goes again (whether or not the server
            // has closed the connection by now).
            guard !channel.isActive, !(error is ExpectationRefused) else { throw error }
            return (try await ResponseReader.answer(sentBefore: error, from: &responses, into: sink), false)
        }
        return (try await ResponseReader.read(from: &responses, into: sink), true)
    }
}
