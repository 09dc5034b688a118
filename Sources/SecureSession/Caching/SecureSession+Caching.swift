import Foundation
import NIOCore
import NIOHTTP1

/// What the session's cache does for one exchange.
enum CacheStep {
    /// The request goes to the server without the cache: no cache, not a `GET`, a request with
    /// conditions or ranges of its own, `Cache-Control: no-store`, or a challenge handler of
    /// its own (its connection's trust is that request's alone).
    case bypass
    /// A kept response answers, without the network.
    case answer(StoredResponse)
    /// The request goes to the server and its response is kept under the key, in place of
    /// `kept` (the stale response there, if any); conditional on `kept`'s validators when
    /// `conditional`.
    case load(CacheKey, kept: StoredResponse?, conditional: Bool)
}

extension SecureSession {
    /// One exchange of `request` (as sent: with its cookies), through the session's
    /// ``SecureSessionConfiguration/responseCache`` when it has one.
    func exchangeThroughCache(
        _ request: SecureRequest,
        sink: @escaping ResponseBodySink,
        closer: ConnectionCloser,
        deadline: Deadline
    ) async throws -> Exchange {
        // A request that cannot be written is refused, whatever the cache keeps.
        if let malformation = request.malformation() { throw SecureSessionError.invalidRequest(malformation) }
        guard let cache = configuration.responseCache else {
            return try await exchange(request, sink: sink, closer: closer, deadline: deadline)
        }
        // Made once, for the cache's key and the exchange's connection alike.
        let connectionKey = try connectionKey(for: request)
        switch try cacheStep(for: request, connectionKey: connectionKey, in: cache) {
        case .bypass:
            let exchanged = try await exchange(request, connectionKey: connectionKey, sink: sink, closer: closer, deadline: deadline)
            Self.invalidate(cache, after: request, answered: exchanged.head)
            return exchanged
        case .answer(let stored):
            instrumentation.cacheLookup("hit")
            configuration.logger.debug("answered from the cache", metadata: [
                "url": "\(request.url.redacted)", "age": "\(Int(stored.currentAge(at: Date())))",
            ])
            return try await answer(request, with: stored, source: .cache, sink: sink)
        case .load(let key, let kept, let conditional):
            var sent = request
            let stored = conditional ? kept : nil
            if let stored { sent.headers.append(contentsOf: stored.validators) }
            let tee = CacheBodyTee(limit: cache.maximumEntrySize)
            let requestTime = Date()
            let exchanged = try await exchange(sent, connectionKey: connectionKey, sink: sink, closer: closer, deadline: deadline, tee: tee)
            let responseTime = Date()
            if let stored, exchanged.head.status == .notModified {
                let updated = stored.revalidated(by: exchanged.head, requestTime: requestTime, responseTime: responseTime)
                cache.store(updated, for: key)
                instrumentation.cacheLookup("revalidated")
                configuration.logger.debug("revalidated from the cache (304)", metadata: ["url": "\(request.url.redacted)"])
                return try await answer(request, with: updated, source: .revalidated, by: exchanged, sink: sink)
            }
            instrumentation.cacheLookup("miss")
            if let body = tee.body, let varied = Self.variedFields(ifStorable: exchanged.head, for: request) {
                var head = exchanged.head
                head.headers = HTTPHeaders(StoredResponse.endToEndFields(of: head.headers))
                cache.store(
                    StoredResponse(
                        head: head, body: body, trailers: exchanged.trailers, trustDecision: exchanged.trustDecision,
                        tlsVersion: exchanged.tlsVersion, requestTime: requestTime, responseTime: responseTime, variedFields: varied
                    ),
                    for: key
                )
            } else if let kept {
                // A new answer that cannot be kept: the one it replaces is no longer current.
                cache.remove(kept, for: key)
            }
            return exchanged
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
        if request.cachePolicy == .reloadIgnoringCacheData { return .load(key, kept: nil, conditional: false) }
        let offline = request.cachePolicy == .returnCacheDataDontLoad || control.has("only-if-cached")
        guard let stored = cache.response(for: key, fields: request.headers) else {
            if offline { throw SecureSessionError.notCached(request.url) }
            return .load(key, kept: nil, conditional: false)
        }
        if request.cachePolicy != .useProtocolCachePolicy { return .answer(stored) }
        let pragmaNoCache = controlFields.isEmpty && request.headers.contains {
            $0.name.equalsIgnoringASCIICase("Pragma") && CacheControl(fields: [$0.value]).has("no-cache")
        }
        if stored.answers(control, pragmaNoCache: pragmaNoCache, at: Date()) { return .answer(stored) }
        if offline { throw SecureSessionError.notCached(request.url) }
        return .load(key, kept: stored, conditional: !stored.validators.isEmpty)
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
        if !stored.body.isEmpty, !(request.followsRedirects && Self.isRedirect(head)) {
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
            source: source
        )
    }

    /// The request fields `head`'s `Vary` names, with the values `request` has, when the
    /// response may be kept (RFC 9111 §3): a final response other than `206` and `304`, not a
    /// challenge, without `no-store` or `Vary: *`, with a freshness it states (`max-age`,
    /// `Expires`, `public`) or a status cacheable by default; else `nil`.
    static func variedFields(ifStorable head: HTTPResponseHead, for request: SecureRequest) -> [String: String?]? {
        let code = Int(head.status.code)
        guard code >= 200, code != 206, code != 304, !isChallenge(head) else { return nil }
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
        let origin = ResponseCache.origin(of: request.url)
        for name in ["Location", "Content-Location"] {
            guard let value = head.headers.first(name: name), let named = URL(string: value, relativeTo: request.url)?.absoluteURL,
                ResponseCache.origin(of: named) == origin, let other = ResponseCache.resource(of: named)
            else { continue }
            cache.invalidate(resource: other)
        }
    }
}
