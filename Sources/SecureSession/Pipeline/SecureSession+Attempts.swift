import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Reachability
import TransportSecurity
import TransportSecurityNIO

extension SecureSession {
    /// ``exchange(_:connectionKey:sink:closer:deadline:tee:)`` on the pool's connections.
    func exchangeOnConnections(
        _ request: SecureRequest,
        connectionKey: ConnectionKey,
        sink: @escaping ResponseBodySink,
        closer: ConnectionCloser,
        deadline: Deadline,
        tee: CacheBodyTee?
    ) async throws -> Exchange {
        // What HTTP_1_1_REQUIRED changes for the next try.
        var keyOfTry = connectionKey
        var tlsContextOfTry = try tlsContexts.context(for: keyOfTry.rule, identity: keyOfTry.identity, isHTTP1Only: keyOfTry.isHTTP1Only)
        let configuration = configuration
        let environment = connectorEnvironment
        let proxyTLSContext = keyOfTry.proxy?.kind == .https ? try tlsContexts.proxyContext() : nil
        // Measured once, before any connection is made: an upload file that cannot be sent is
        // refused first; a retry sends the same body again (a file from its start).
        let body = try RequestBodySource.of(request)
        var attempt = 0
        // Tries turned away by a server that served others on their connection, or that asked
        // for HTTP/1.1: not counted.
        var uncountedTries = 0
        // Whether the request went again to present a handler's answer to a renegotiation.
        var answeredRenegotiation = false
        // Until a server refuses the expectation (417): then without it.
        var mayWaitToContinue = true
        let clock = ContinuousClock()
        while true {
            attempt += 1
            tee?.reset()
            let key = keyOfTry
            let tlsContext = tlsContextOfTry
            let leasing = clock.now
            let (connection, reused): (any HTTPConnection, Bool)
            deadline.enter(.waitingForConnection(key))
            do {
                (connection, reused) = try await pool.lease(key, deadline: deadline) {
                    try await Connector.connect(key: key, tlsContext: tlsContext, proxyTLSContext: proxyTLSContext, deadline: deadline, in: environment)
                }
            } catch let failure as SecureSessionError where failure.code == .connectionFailed {
                // Nothing of this request was sent: it may be tried again once the host is reachable.
                throw ConnectionNotEstablished(error: failure)
            }
            let leased = clock.now
            deadline.enter(.awaitingResponse(key))
            // When the response's first part came (`nil`: nothing of it yet).
            let firstPart = NIOLockedValueBox<ContinuousClock.Instant?>(nil)
            let held = BodyCollector(limit: configuration.memoryLimit(of: request))
            do {
                let followsRedirects = request.followsRedirects
                let sentHead = requestHead(request, key: key, body: body)
                if let observe = configuration.features.requestHeadObserver {
                    let isHTTP2 = connection is HTTP2Connection
                    let written = isHTTP2 ? sentHead : ExpectContinue.head(
                        sentHead, body: body, mayWaitToContinue: mayWaitToContinue, expectContinue: configuration.connections.expectContinue
                    )
                    observe(SentRequestHead(written, url: request.url, isHTTP2: isHTTP2))
                }
                let response = try await connection.execute(
                    head: sentHead,
                    replayable: request.isReplayable,
                    body: body,
                    mayWaitToContinue: mayWaitToContinue,
                    closer: closer
                ) { head, buffer in
                    firstPart.withLockedValue { if $0 == nil { $0 = clock.now } }
                    deadline.received(buffer.readableBytes, from: key)
                    // The empty part that says the head came is nobody else's.
                    if buffer.readableBytes == 0 { return }
                    tee?.append(buffer)
                    // The body of a redirect that will be followed is not the caller's; a
                    // challenge's body is held until it is known whether the request is resent.
                    if followsRedirects, head.isRedirect { return }
                    if head.isChallenge { return try held.append(buffer, of: head) }
                    try await sink(head, buffer)
                }
                pool.release(connection, reusable: response.reusable && !key.isSingleUse)
                let ended = clock.now
                let head = firstPart.withLockedValue { $0 } ?? ended
                let opening = reused ? nil : connection.establishment
                let timing = ResponseTiming(
                    reusedConnection: reused,
                    queueing: max(.zero, leased - leasing - (opening.map { $0.connect + ($0.tlsHandshake ?? .zero) } ?? .zero)),
                    connect: opening?.connect,
                    tlsHandshake: opening?.tlsHandshake,
                    waiting: head - leased,
                    download: ended - head
                )
                return Exchange(
                    head: response.head, trailers: response.trailers, trustDecision: connection.trustDecision,
                    tlsVersion: connection.establishment.tlsVersion, heldBody: held.data, timing: timing
                )
            } catch is ExpectationRefused where mayWaitToContinue {
                pool.release(connection, reusable: false)
                mayWaitToContinue = false
                configuration.logger(for: request).debug("expectation refused (417), sending again without it", metadata: ["url": "\(request.url.redacted)"])
            } catch let notProcessed as RequestNotProcessed {
                pool.release(connection, reusable: false)
                try checkMayTryAgain(deadline)
                if notProcessed.afterOthersWereServed { uncountedTries += 1 }
                guard attempt - uncountedTries < 3, firstPart.withLockedValue({ $0 }) == nil else {
                    throw SecureSessionError.connectionFailed(notProcessed.description)
                }
                configuration.logger(for: request).debug("not processed by the server, sending again on a new connection", metadata: [
                    "url": "\(request.url.redacted)", "reason": "\(notProcessed)",
                ])
            } catch let required as HTTP1Required {
                // The stream was reset; the connection serves the server's other requests.
                pool.release(connection, reusable: true)
                try checkMayTryAgain(deadline)
                guard !key.isHTTP1Only, firstPart.withLockedValue({ $0 }) == nil else {
                    throw SecureSessionError.connectionFailed(required.description)
                }
                http1OnlyServers.remember((), for: key.server)
                keyOfTry = key.offeringHTTP1Only()
                tlsContextOfTry = try tlsContexts.context(for: key.rule, identity: key.identity, isHTTP1Only: true)
                uncountedTries += 1
                configuration.logger(for: request).debug("the server requires HTTP/1.1, sending again over HTTP/1.1", metadata: [
                    "url": "\(request.url.redacted)", "reason": "\(required)",
                ])
            } catch let requested as CertificateRequestedByRenegotiation {
                pool.release(connection, reusable: false)
                try checkMayTryAgain(deadline)
                // The handler was asked when the server asked: its answer (or its cancellation)
                // decides the next try.
                guard firstPart.withLockedValue({ $0 }) == nil, !answeredRenegotiation,
                    let challenge = (connection as? HTTP1Connection)?.certificateChallenge
                else { throw SecureSessionError.tlsFailure(requested.description) }
                // Kept by `renegotiationAnswers` once given: the next connection presents it.
                let answer = try await deadline.bound { try await challenge.answerGiven() }
                answeredRenegotiation = true
                uncountedTries += 1
                configuration.logger(for: request).debug("the server asked for a client certificate by renegotiating, sending again presenting the handler's answer", metadata: [
                    "url": "\(request.url.redacted)", "presents": "\(answer.identity?.leaf.subjectSummary ?? "no certificate")",
                ])
            } catch {
                pool.release(connection, reusable: false)
                // The session closed the connection under the request.
                if pool.hasShutDown { throw SecureSessionError.sessionShutDown }
                let error = (error as? ClosedWithoutCloseNotify)?.failure(answerBegun: firstPart.withLockedValue { $0 } != nil) ?? error
                guard case .connectionFailed(let detail)? = error.sessionFailureReason, reused, attempt == 1, firstPart.withLockedValue({ $0 }) == nil,
                    !Task.isCancelled
                else { throw (error as? SecureSessionError)?.naming(stage: deadline.stageDescription) ?? error }
                guard request.isReplayable else {
                    // (An HTTP/2 server closing an idle connection says so with a GOAWAY first.)
                    guard connection is HTTP1Connection else { throw error }
                    throw SecureSessionError.connectionFailed(
                        "\(detail) (on a connection kept from an earlier request, before any answer: the server may have closed it as idle just as the request went; a \(request.method.rawValue) is not sent again by itself, as it may have been processed, unless it carries an idempotency key)"
                    )
                }
                configuration.logger(for: request).debug("retrying on a new connection", metadata: ["url": "\(request.url.redacted)"])
            }
        }
    }
}
