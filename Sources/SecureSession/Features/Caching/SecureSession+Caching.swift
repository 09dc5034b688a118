import Foundation
import NIOCore
import NIOHTTP1
import TransportSecurity

/// What the session's cache does for one exchange.
enum CacheStep {
    /// The request goes to the server without the cache: no cache, not a `GET`, a request with
    /// conditions or ranges of its own, `Cache-Control: no-store`, or a challenge handler of
    /// its own (its connection's trust is that request's alone).
    case bypass
    /// A kept response answers, without the network.
    case answer(StoredResponse)
    /// A kept stale response answers, without the network, and is revalidated in the
    /// background (`stale-while-revalidate`).
    case answerWhileRevalidating(StoredResponse, CacheKey)
    /// The request goes to the server and its response is kept under the key.
    case load(CacheLoad)
}

/// A request the cache sends to the server, and what it does with the answer.
struct CacheLoad {
    /// Where the response is kept.
    let key: CacheKey
    /// The response kept under the key (stale, or one its server said to revalidate), which
    /// the new one replaces.
    var kept: StoredResponse?
    /// Whether the request is made conditional on `kept`'s validators.
    var conditional = false
    /// Until when `kept` may answer, stale, if the server fails (`stale-if-error`).
    var fallbackUntil: Date?
}

extension SecureSession {
    /// One exchange of `request` (as sent: with its cookies), through the session's
    /// ``SecureSessionConfiguration/Responses/cache`` when it has one.
    func exchangeThroughCache(
        _ request: SecureRequest,
        sink: @escaping ResponseBodySink,
        closer: ConnectionCloser,
        deadline: Deadline
    ) async throws -> Exchange {
        // A request that cannot be written is refused, whatever the cache keeps.
        if let malformation = request.malformation() { throw SecureSessionError.invalidRequest(malformation) }
        guard let cache = configuration.responses.cache else {
            return try await exchange(request, sink: sink, closer: closer, deadline: deadline)
        }
        // Made once, for the cache's key and the exchange's connection alike.
        let connectionKey = try connectionKey(for: request)
        switch try cacheStep(for: request, connectionKey: connectionKey, in: cache) {
        case .bypass:
            let exchanged = try await exchange(request, connectionKey: connectionKey, sink: sink, closer: closer, deadline: deadline)
            let head = exchanged.head
            request.whenAnswerVerified { Self.invalidate(cache, after: request, answered: head) }
            return exchanged
        case .answer(let stored):
            instrumentation.cacheLookup("hit")
            configuration.logger(for: request).debug("answered from the cache", metadata: [
                "url": "\(request.url.redacted)", "age": "\(Int(stored.currentAge(at: Date())))",
            ])
            return try await answer(request, with: stored, source: .cache, sink: sink)
        case .answerWhileRevalidating(let stored, let key) where request.arrivalCheck?.requires(request.url) == true:
            // An answer that must be signed is verified before it is kept: revalidated now, with
            // the check that verifies the answer, not in the background with none.
            return try await self.load(
                request, CacheLoad(key: key, kept: stored, conditional: !stored.validators.isEmpty),
                connectionKey: connectionKey, in: cache, sink: sink, closer: closer, deadline: deadline
            )
        case .answerWhileRevalidating(let stored, let key):
            instrumentation.cacheLookup("stale")
            revalidateInBackground(request, kept: stored, key: key, connectionKey: connectionKey, in: cache)
            return try await answer(request, with: stored, source: .staleWhileRevalidating, sink: sink)
        case .load(let load):
            return try await self.load(request, load, connectionKey: connectionKey, in: cache, sink: sink, closer: closer, deadline: deadline)
        }
    }

    /// Sends `request` for `load`, keeps what may be kept of the answer, and answers with the
    /// kept response when the server confirms it (`304`) or, within `stale-if-error`, fails.
    /// A background revalidation's load is not counted as a lookup (its request's was).
    private func load(
        _ request: SecureRequest,
        _ load: CacheLoad,
        inBackground: Bool = false,
        connectionKey: ConnectionKey,
        in cache: ResponseCache,
        sink: @escaping ResponseBodySink,
        closer: ConnectionCloser,
        deadline: Deadline
    ) async throws -> Exchange {
        var sent = request
        // A 304 confirms a kept answer with fields of its own, which the kept answer's signature
        // does not cover: the answers that must be signed are asked for whole.
        let stored = load.conditional && request.arrivalCheck?.requires(request.url) != true ? load.kept : nil
        if let stored { sent.headers.append(contentsOf: stored.validators) }
        let tee = CacheBodyTee(limit: cache.maximumEntrySize)
        let fallback = load.fallbackUntil.flatMap { until in load.kept.map { (response: $0, until: until) } }
        // With a fallback, the body of a server error it answers in place of is not the
        // caller's (`withheld`), and it answers a failure only if nothing reached the caller.
        let (delivered, withheld) = (LockedFlag(), LockedFlag())
        var loadSink = sink
        if let until = fallback?.until {
            loadSink = { head, buffer in
                if Self.fallbackStatuses.contains(head.status.code), withheld.isSet || Date() <= until {
                    withheld.set()
                    return
                }
                delivered.set()
                try await sink(head, buffer)
            }
        }
        let requestTime = Date()
        let exchanged: Exchange
        do {
            exchanged = try await exchange(sent, connectionKey: connectionKey, sink: loadSink, closer: closer, deadline: deadline, tee: tee)
        } catch {
            guard let fallback, !delivered.isSet, Date() <= fallback.until, let reason = Self.fallbackReason(error) else { throw error }
            return try await answer(request, staleAfter: reason, with: fallback.response, sink: sink)
        }
        let responseTime = Date()
        if let fallback, Self.fallbackStatuses.contains(exchanged.head.status.code), withheld.isSet || Date() <= fallback.until {
            let reason = "HTTP \(exchanged.head.status.code) \(exchanged.head.status.reasonPhrase)"
            return try await answer(request, staleAfter: reason, with: fallback.response, sink: sink)
        }
        // A revalidation in the background that met a server error leaves the kept response
        // (stale, it may still answer within its stale-if-error).
        if inBackground, Self.fallbackStatuses.contains(exchanged.head.status.code) { return exchanged }
        if let stored, exchanged.head.status == .notModified {
            let updated = stored.revalidated(by: exchanged.head, requestTime: requestTime, responseTime: responseTime)
            request.whenAnswerVerified { cache.store(updated, for: load.key) }
            if !inBackground { instrumentation.cacheLookup("revalidated") }
            configuration.logger(for: request).debug("revalidated from the cache (304)", metadata: ["url": "\(request.url.redacted)"])
            return try await answer(request, with: updated, source: .revalidated, by: exchanged, sink: sink)
        }
        if !inBackground { instrumentation.cacheLookup("miss") }
        // A redirect followed from a host whose answers must be signed was verified over its head
        // only: a body of its, never checked, is not kept (it would answer a request that does
        // not follow redirects).
        let unchecked = request.followsRedirects && exchanged.head.isRedirect && tee.body?.isEmpty == false
            && request.arrivalCheck?.requires(request.url) == true
        if !unchecked, let body = tee.body, let varied = Self.variedFields(ifStorable: exchanged.head, for: request) {
            var head = exchanged.head
            head.headers = HTTPHeaders(StoredResponse.endToEndFields(of: head.headers))
            let kept = StoredResponse(
                head: head, body: body, trailers: exchanged.trailers, trustDecision: exchanged.trustDecision,
                tlsVersion: exchanged.tlsVersion, requestTime: requestTime, responseTime: responseTime, variedFields: varied
            )
            request.whenAnswerVerified { cache.store(kept, for: load.key) }
        } else if let kept = load.kept {
            // A new answer that cannot be kept: the one it replaces is no longer current.
            request.whenAnswerVerified { cache.remove(kept, for: load.key) }
        }
        return exchanged
    }

    /// The statuses of a server that failed to answer (RFC 5861 §4).
    private static let fallbackStatuses: Set<UInt> = [500, 502, 503, 504]

    /// What failed, in words, when `error` is one a stale response may answer in place of: a
    /// connection that failed, a timeout, a server whose circuit is open or whose turn under the
    /// rate limit is too far. `nil` for every other error: a rejected certificate, a failed TLS
    /// handshake, a cancellation fail the request.
    static func fallbackReason(_ error: any Error) -> String? {
        switch (error as? ConnectionNotEstablished)?.error ?? error as? SecureSessionError {
        case let failure?:
            switch failure.code {
            case .connectionFailed, .timeout, .circuitOpen, .rateLimited: "\(failure)"
            default: nil
            }
        case nil: nil
        }
    }

    /// `stored`, stale, as the answer to `request` whose server failed with `reason`.
    private func answer(_ request: SecureRequest, staleAfter reason: String, with stored: StoredResponse, sink: @escaping ResponseBodySink) async throws -> Exchange {
        instrumentation.cacheLookup("stale")
        configuration.logger(for: request).debug("answered with a stale response: the server failed", metadata: [
            "url": "\(request.url.redacted)", "failure": "\(reason)", "age": "\(Int(stored.currentAge(at: Date())))",
        ])
        return try await answer(request, with: stored, source: .staleAfterFailure(reason: reason), sink: sink)
    }

    /// Revalidates `kept` (the response under `key`) in a task of its own, unless that is
    /// already being done: `request` sent again, conditional on `kept`'s validators, its answer
    /// kept as any load's, within the request's own time limit. A failure leaves `kept` as it is.
    private func revalidateInBackground(_ request: SecureRequest, kept: StoredResponse, key: CacheKey, connectionKey: ConnectionKey, in cache: ResponseCache) {
        guard cache.beginRevalidation(of: key) else { return }
        let limit = request.timeout ?? configuration.timeouts.request
        let logger = configuration.logger(for: request)
        Task {
            defer { cache.endRevalidation(of: key) }
            let closer = ConnectionCloser()
            do {
                _ = try await withDeadline(limit, onTimeout: closer.closeAll) { deadline in
                    try await self.load(
                        request, CacheLoad(key: key, kept: kept, conditional: !kept.validators.isEmpty), inBackground: true,
                        connectionKey: connectionKey, in: cache, sink: { _, _ in }, closer: closer, deadline: deadline
                    )
                }
            } catch {
                logger.debug("background revalidation failed", metadata: ["url": "\(request.url.redacted)", "error": "\(error)"])
            }
        }
    }

    /// What the cache does for `request`, whose connections are those of `connectionKey`.
    /// - Throws: ``SecureSessionError/notCached(_:)`` when nothing kept may answer a request that
    ///   may not use the network.
    func cacheStep(for request: SecureRequest, connectionKey: ConnectionKey, in cache: ResponseCache) throws -> CacheStep {
        let conditions = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]
        guard request.method == .get, !request.headers.contains(where: { field in conditions.contains { $0.equalsIgnoringASCIICase(field.name) } }) else {
            return .bypass
        }
        let controlFields = request.headers.filter { $0.name.equalsIgnoringASCIICase("Cache-Control") }.map(\.value)
        let control = CacheControl(fields: controlFields)
        guard !control.has("no-store"), !connectionKey.isSingleUse, let key = CacheKey(request: request, connectionKey: connectionKey) else {
            return .bypass
        }
        if request.cachePolicy == .reloadIgnoringCacheData { return .load(CacheLoad(key: key)) }
        let offline = request.cachePolicy == .returnCacheDataDontLoad || control.has("only-if-cached")
        guard let stored = cache.response(for: key, fields: request.headers) else {
            if offline { throw SecureSessionError.notCached(request.url) }
            return .load(CacheLoad(key: key))
        }
        if request.cachePolicy != .useProtocolCachePolicy { return .answer(stored) }
        let pragmaNoCache = controlFields.isEmpty && request.headers.contains {
            $0.name.equalsIgnoringASCIICase("Pragma") && CacheControl(fields: [$0.value]).has("no-cache")
        }
        let now = Date()
        if stored.answers(control, pragmaNoCache: pragmaNoCache, at: now) { return .answer(stored) }
        if offline { throw SecureSessionError.notCached(request.url) }
        if stored.answersWhileRevalidating(control, pragmaNoCache: pragmaNoCache, at: now) { return .answerWhileRevalidating(stored, key) }
        return .load(CacheLoad(
            key: key, kept: stored, conditional: !stored.validators.isEmpty,
            fallbackUntil: stored.usableAfterFailure(control, pragmaNoCache: pragmaNoCache, at: now)
        ))
    }

    /// `stored` as the answer to `request`: its body to `sink` (unless it is a redirect the
    /// request follows), its head with its `Age`. `revalidation`: the exchange whose `304`
    /// confirmed it, whose connection, trust decision and timing the answer has.
    private func answer(
        _ request: SecureRequest,
        with stored: StoredResponse,
        source: ResponseSource,
        by revalidation: Exchange? = nil,
        sink: @escaping ResponseBodySink
    ) async throws -> Exchange {
        let head = stored.servedHead(at: Date())
        if !stored.body.isEmpty, !(request.followsRedirects && head.isRedirect) {
            try await sink(head, ByteBuffer(bytes: stored.body))
        }
        return Exchange(
            head: head,
            trailers: stored.trailers,
            trustDecision: revalidation?.trustDecision ?? stored.trustDecision,
            tlsVersion: revalidation?.tlsVersion ?? stored.tlsVersion,
            heldBody: Data(),
            timing: revalidation?.timing
                ?? ResponseTiming(reusedConnection: false, queueing: .zero, connect: nil, tlsHandshake: nil, waiting: .zero, download: .zero),
            source: source,
            confirmingHead: revalidation?.head
        )
    }

    /// The request fields `head`'s `Vary` names, with the values `request` has, when the
    /// response may be kept (RFC 9111 §3): a final response other than `206` and `304`, not a
    /// challenge, without `no-store` or `Vary: *`, with a freshness it states (`max-age`,
    /// `Expires`, `public`) or a status cacheable by default; else `nil`.
    static func variedFields(ifStorable head: HTTPResponseHead, for request: SecureRequest) -> [String: String?]? {
        let code = Int(head.status.code)
        guard code >= 200, code != 206, code != 304, !head.isChallenge else { return nil }
        let control = CacheControl(fields: head.headers["Cache-Control"])
        guard !control.has("no-store"), let names = CacheKey.variedNames(of: head.headers["Vary"]) else { return nil }
        let statesFreshness = control.has("max-age") || control.has("public") || head.headers.contains(name: "Expires")
        guard statesFreshness || StoredResponse.heuristicallyCacheable.contains(code) else { return nil }
        return Dictionary(names.map { ($0, CacheKey.value(of: $0, in: request.headers)) }, uniquingKeysWith: { first, _ in first })
    }

    /// After a request that may have changed its resource (a method other than `GET`, `HEAD`,
    /// `OPTIONS` and `TRACE`, answered with a success or a redirect), forgets what `cache` kept
    /// of it and of the resources its `Location` and `Content-Location` name on the same origin
    /// (RFC 9111 §4.4).
    static func invalidate(_ cache: ResponseCache, after request: SecureRequest, answered head: HTTPResponseHead) {
        let safe: Set<HTTPMethod> = [.get, .head, .options, "TRACE"]
        guard !safe.contains(request.method), (200..<400).contains(Int(head.status.code)),
            let resource = ResponseCache.resource(of: request.url)
        else { return }
        cache.invalidate(resource: resource)
        let origin = ServerName.origin(of: request.url)
        for name in ["Location", "Content-Location"] {
            guard let value = head.headers.first(name: name), let named = URL(string: value, relativeTo: request.url)?.absoluteURL,
                ServerName.origin(of: named) == origin, let other = ResponseCache.resource(of: named)
            else { continue }
            cache.invalidate(resource: other)
        }
    }
}
