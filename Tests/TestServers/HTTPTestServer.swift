import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import LabServers
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import PKIBuilder
import TransportSecurity
import TransportSecurityNIO

/// An HTTP(S) server on 127.0.0.1 for the session tests.
///
/// Routes: `/hello` (text), `/json` (JSON), `/echo` (the request body back, method in
/// `X-Method`), `/status/N`, `/redirect?to=URL[&status=N][&sts=VALUE]` (with `sts`, a `Strict-Transport-Security` field too), `/bytes/N` (N bytes, streamed),
/// `/chunked/N` (N bytes, chunked, no length announced), `/endless` (chunks until the client
/// closes), `/delay/MS` (answers after MS milliseconds; counted in ``tally`` as `/delay`), `/target…` (the request line's target, as received), `/goaway` (HTTP/2: a `GOAWAY`
/// on the connection, then an answer),
/// `/never` (never answers; counted in ``tally`` as `/never`), `/collect` (keeps posted bodies in ``collected``), `/loop` (redirects to itself), `/basic` and
/// `/digest?algorithm=MD5|SHA-256[&first=ALGORITHM][&stale=1]` (user alice, password wonderland, realm lab; with
/// `cc=V`, the welcome has `Cache-Control: V`; `/basic`'s requests counted in ``tally`` as `/basic`), `/once` (closes a connection
/// on its second request), `/connection` (an id of the TCP connection), `/trailers?N=V…` (`hello`,
/// chunked, then each query item as a trailer field), `/client-certificate` (the
/// subject of the certificate the client presented, or `none`), `/set-cookie[?to=URL]` (each
/// `X-Set-Cookie` request field as a `Set-Cookie` field; with `to`, a 302 there),
/// `/refuse-upload` (a 413 as soon as the head arrives, then the connection or stream closed),
/// `/gzipped`, `/gzipped-truncated` and `/gzipped-corrupt` (a gzip body: whole, cut short, or with bytes that are no deflate data), `/headers` (the
/// request headers as JSON), `/files/NAME` (what ``files`` holds; `application/x-plist` for a
/// name ending in `.plist`), `POST /ocsp` (``ocspResponder``),
/// `/header?name=N&value=V` (a 200 with the field `N: V`), `/early-hints` (a 103 before a 200), `/signed` (``signatures``: the request's HTTP message signature checked, the answer signed),
/// `POST /payments[?busy=N][&lose=N][&field=NAME]` (``payments``: a payment API honouring idempotency keys),
/// `Expect: 100-continue` answered (see `answerExpectation`), request body bytes counted in ``receivedBodyBytes``,
/// `/flaky?key=K&failures=N[&status=S][&retry-after=V][&drop=1]` (the first N requests with key K
/// answered with status S, 503 by default, and `Retry-After: V`, or with the connection closed
/// unanswered, or with `cut=1` a 200 closed after 10 of its 100 bytes; later ones with 200 `recovered on request M, X-Attempt A`; counts in ``tally``),
/// `/ranged?key=K[&size=N][&etag=E[&weak=1]][&modified=1][&cuts=M&cut=C][&change-after=R][&ignore-range=1][&shift=S]`
/// (``rangedBody(size:version:)``, 1000 bytes by default, answering `Range: bytes=F-` with a
/// 206 or a 416 unless `ignore-range`, when `If-Range` matches its `ETag` or `Last-Modified`;
/// the first M requests with key K closed after C bytes of their body; the body, tag and date of
/// version 2 after request R; a `Content-Range` S bytes off; with `partial-anyway`, a 206 of its
/// first 10 bytes whatever was asked; the request's `Range` and
/// `If-Range` echoed in `X-Range-Asked` and `X-If-Range`),
/// `/cached?key=K[&cc=V][&nostore-after=N][&etag=1][&modified=1][&vary=NAME][&age=N][&expires=V][&status=S][&size=N][&location=URL][&cookie=SET-COOKIE][&fail-after=N&fail=STATUS|close|hang]`
/// (request M of key K answered `body M of K` (with `for VALUE`, the request's field NAME, when
/// `vary`), with `Cache-Control: V` (`no-store` after request N), `ETag: "v1"`, a fixed `Last-Modified`, `Vary: NAME`,
/// `Age: N`, `Expires: V`, `Location` and (not on a `304`) `Set-Cookie` as given; a `304` with `X-Revalidated: M` when its
/// `If-None-Match` or `If-Modified-Since` matches; with `size`, N bytes `x` as the body; after
/// request N of `fail-after`, `failure M` with the status `fail` (503 by default), or the
/// connection closed, or no answer).
public final class HTTPTestServer: Sendable {
    /// The body of `/ranged` (byte i is `(7 i + version) mod 251`): a pattern in which a part
    /// put in the wrong place shows.
    public static func rangedBody(size: Int, version: Int = 1) -> [UInt8] {
        (0..<size).map { UInt8(($0 * 7 + version) % 251) }
    }

    public let channel: any Channel
    public let isSecure: Bool
    public let connections = ConnectionCounter()
    /// The connections accepted and still open, for `crash()`.
    private let acceptedChannels = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])
    /// The bodies posted to `/collect`, in arrival order.
    public let collected = CollectedBodies()
    /// What `/files/NAME` serves (404 for a name not set).
    public let files = ServedFiles()
    /// Answers `POST /ocsp` with the DER response for the DER request (500 when unset).
    public let ocspResponder = OCSPResponderBox()
    /// How many requests `/flaky` received per key.
    public let tally = RequestTally()
    /// The request body bytes received, all requests together.
    public let receivedBodyBytes = ByteTally()
    /// The OAuth token endpoint `POST /oauth/token` and the API `/oauth/api` it issues tokens for.
    public let oauth = OAuthServer()
    /// Checks and makes the HTTP message signatures of `/signed`.
    public let signatures = SignatureCheckpoint()
    /// The payment API of `POST /payments`, which honours idempotency keys.
    public let payments = IdempotentPayments()

    public var port: Int { channel.localAddress?.port ?? 0 }

    public func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "\(isSecure ? "https" : "http")://\(host):\(port)\(path)")!
    }

    /// Starts the server.
    /// - Parameters:
    ///   - chain: The TLS chain to present; `nil` for cleartext HTTP.
    ///   - clientVerifier: Require client certificates, decided by this verifier.
    ///   - bindHost: The address to listen on (`0.0.0.0` for every local address).
    ///   - http2: Offer HTTP/2 through ALPN (TLS only); every stream is routed as a request.
    ///   - idleTimeout: Close a connection on which nothing was read or written for this long,
    ///     without saying so beforehand (no `Keep-Alive: timeout=N`), as uvicorn and HAProxy do.
    ///   - port: The port to listen on; 0 lets the system choose (a restarted server takes its
    ///     predecessor's).
    public init(
        chain: [IssuedCertificate]?,
        clientVerifier: PeerTrustVerifier? = nil,
        bindHost: String = "127.0.0.1",
        http2: Bool = false,
        idleTimeout: TimeAmount? = nil,
        port: Int = 0
    ) async throws {
        let clientCertificates: ClientCertificateRequirement = clientVerifier == nil ? .none : .required
        self.clientCertificates = clientCertificates
        offersHTTP2 = http2 && chain != nil
        if let chain {
            currentContext.set(try Self.context(for: chain, clientCertificates: clientCertificates, http2: http2))
        }
        isSecure = chain != nil
        let counter = connections
        let collected = collected
        let files = files
        let responder = ocspResponder
        let tally = tally
        let receivedBodyBytes = receivedBodyBytes
        let oauth = oauth
        let signatures = signatures
        let payments = payments
        let isSecure = isSecure
        let contexts = currentContext
        let offersHTTP2 = offersHTTP2
        let streams = http2Streams
        let accepted = acceptedChannels
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let connection = counter.next()
                accepted.withLockedValue { $0[ObjectIdentifier(channel)] = channel }
                channel.closeFuture.whenComplete { _ in
                    counter.close()
                    accepted.withLockedValue { $0[ObjectIdentifier(channel)] = nil }
                }
                @Sendable func routes() -> RouteHandler {
                    RouteHandler(
                        connection: connection, collected: collected, files: files, responder: responder, tally: tally, receivedBodyBytes: receivedBodyBytes,
                        oauth: oauth, signatures: signatures, payments: payments, isSecure: isSecure
                    )
                }
                return channel.eventLoop.makeCompletedFuture {
                    if let context = contexts.get() {
                        let handler =
                            clientVerifier.map {
                                NIOSSLServerHandler(context: context, customVerificationCallback: $0.makeVerificationCallback())
                            } ?? NIOSSLServerHandler(context: context)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    if let idleTimeout {
                        try channel.pipeline.syncOperations.addHandlers(IdleStateHandler(allTimeout: idleTimeout), IdleConnectionCloser())
                    }
                }.flatMap {
                    channel.configureLabHTTPServer(http2: offersHTTP2, onConnectionFrame: { frame in
                        if case .ping(_, ack: false) = frame.payload { _ = tally.next(RequestTally.pings) }
                    }) { forHTTP2Stream in
                        if forHTTP2Stream { _ = streams.next() }
                        return routes()
                    }
                }
            }
            .bind(host: bindHost, port: port)
            .get()
    }

    public func stop() async { try? await channel.close() }

    /// The server process dies: it stops listening and every connection it accepted closes at
    /// once, requests in flight included (`stop()` leaves accepted connections open).
    public func crash() async {
        try? await channel.close()
        for connection in acceptedChannels.withLockedValue({ Array($0.values) }) {
            try? await connection.close()
        }
    }

    /// Presents `chain` on every connection accepted from now on (a certificate rotation);
    /// connections already open keep the old one.
    public func rotate(to chain: [IssuedCertificate]) throws {
        currentContext.set(try Self.context(for: chain, clientCertificates: clientCertificates, http2: offersHTTP2))
    }

    /// How many HTTP/2 streams the server has accepted.
    public var http2StreamCount: Int { http2Streams.total }

    /// How many request heads the server has read, whatever their path: what an impostor must
    /// never get.
    public var requestCount: Int { tally.count(RequestTally.everyRequest) }

    /// How many PINGs HTTP/2 clients have sent (acknowledgements not counted).
    public var pingCount: Int { tally.count(RequestTally.pings) }

    private let currentContext = SSLContextBox()
    private let clientCertificates: ClientCertificateRequirement
    private let offersHTTP2: Bool
    private let http2Streams = ConnectionCounter()

    private static func context(for chain: [IssuedCertificate], clientCertificates: ClientCertificateRequirement, http2: Bool) throws -> NIOSSLContext {
        let identity = try ClientIdentity(certificateChainPEM: chain.pemBundle, privateKeyPEM: chain[0].privateKeyPEM)
        var configuration = TLSConfiguration.transportSecurityServer(identity: identity, clientCertificates: clientCertificates)
        if http2 { configuration.applicationProtocols = ["h2", "http/1.1"] }
        return try NIOSSLContext(configuration: configuration)
    }
}

/// Drops every byte that arrives: a connection whose peer hears nothing more.
final class InboundBlackhole: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

/// The bodies a test server received on `/collect`.
public final class CollectedBodies: @unchecked Sendable {
    private let lock = NSLock()
    private var bodies: [Data] = []
    func append(_ body: Data) { lock.withLock { bodies.append(body) } }
    /// Every body received so far.
    public var all: [Data] { lock.withLock { bodies } }
}

/// The OCSP responder behind `POST /ocsp`, settable while the server runs.
public final class OCSPResponderBox: @unchecked Sendable {
    private let lock = NSLock()
    private var responder: (@Sendable ([UInt8]) throws -> [UInt8])?
    /// The function from request DER to response DER.
    public var answer: (@Sendable ([UInt8]) throws -> [UInt8])? {
        get { lock.withLock { responder } }
        set { lock.withLock { responder = newValue } }
    }
}

/// The files a test server serves at `/files/NAME`, changeable while it runs.
public final class ServedFiles: @unchecked Sendable {
    private let lock = NSLock()
    private var contents: [String: [UInt8]] = [:]
    /// The text served as `/files/NAME`.
    public subscript(name: String) -> String? {
        get { self[bytes: name].map { String(decoding: $0, as: UTF8.self) } }
        set { self[bytes: name] = newValue.map { Array($0.utf8) } }
    }
    /// The bytes served as `/files/NAME`.
    public subscript(bytes name: String) -> [UInt8]? {
        get { lock.withLock { contents[name] } }
        set { lock.withLock { contents[name] = newValue } }
    }
}

/// Requests counted per key.
public final class RequestTally: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    func next(_ key: String) -> Int { lock.withLock { counts[key, default: 0] += 1; return counts[key]! } }
    /// The requests counted for `key`.
    public func count(_ key: String) -> Int { lock.withLock { counts[key] ?? 0 } }
    /// The key under which every request head is counted.
    static let everyRequest = "*"
    /// The key under which an HTTP/2 client's PINGs are counted.
    static let pings = "PING"
}

/// A count of bytes, safe to share.
public final class ByteTally: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    /// Nothing counted yet.
    public init() {}
    /// Counts `bytes` more.
    public func add(_ bytes: Int) { lock.withLock { count += bytes } }
    /// The bytes counted so far.
    public var total: Int { lock.withLock { count } }
}

/// Counts the TCP connections a test server accepted, and those still open.
public final class ConnectionCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var closed = 0
    func next() -> Int { lock.withLock { count += 1; return count } }
    func close() { lock.withLock { closed += 1 } }
    /// The connections accepted so far.
    public var total: Int { lock.withLock { count } }
    /// The connections accepted and not yet closed (by either side).
    public var open: Int { lock.withLock { count - closed } }
}

private final class RouteHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let connection: Int
    let collected: CollectedBodies
    let files: ServedFiles
    let responder: OCSPResponderBox
    let tally: RequestTally
    let oauth: OAuthServer
    let signatures: SignatureCheckpoint
    let payments: IdempotentPayments
    let isSecure: Bool
    let receivedBodyBytes: ByteTally
    private var head: HTTPRequestHead?
    private var requestsOnThisConnection = 0
    private var body = ByteBuffer()

    init(
        connection: Int, collected: CollectedBodies, files: ServedFiles, responder: OCSPResponderBox, tally: RequestTally, receivedBodyBytes: ByteTally,
        oauth: OAuthServer, signatures: SignatureCheckpoint, payments: IdempotentPayments, isSecure: Bool
    ) {
        self.signatures = signatures
        self.payments = payments
        self.isSecure = isSecure
        self.receivedBodyBytes = receivedBodyBytes
        self.connection = connection
        self.tally = tally
        self.oauth = oauth
        self.collected = collected
        self.files = files
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            _ = tally.next(RequestTally.everyRequest)
            if head.uri == "/refuse-upload" {
                // Answers before reading the body, then closes once the answer is out (HTTP/2:
                // resets the stream).
                let headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "9"), ("Connection", "close")])
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .payloadTooLarge, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "too large")))), promise: nil)
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
                self.head = nil
            } else if head.headers[canonicalForm: "expect"].contains("100-continue") {
                answerExpectation(context: context, head: head)
            }
        case .body(var chunk):
            receivedBodyBytes.add(chunk.readableBytes)
            body.writeBuffer(&chunk)
        case .end:
            guard let head else { return }
            respond(context: context, to: head)
        }
    }

    /// `Expect: 100-continue`: `/basic` without alice's credentials is refused at once (401,
    /// then the connection closed: the body is not wanted); a URI with `refuse-expect` gets a
    /// 417, one with `ignore-expect` no word; anything else gets `100 Continue`.
    private func answerExpectation(context: ChannelHandlerContext, head: HTTPRequestHead) {
        if head.uri.hasPrefix("/basic"), head.headers.first(name: "Authorization") != "Basic " + Data("alice:wonderland".utf8).base64EncodedString() {
            let headers = HTTPHeaders([("Content-Length", "0"), ("WWW-Authenticate", #"Basic realm="lab""#), ("Connection", "close")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .unauthorized, headers: headers))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            self.head = nil
        } else if head.uri.contains("refuse-expect") {
            let headers = HTTPHeaders([("Content-Length", "0"), ("Connection", "close")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .expectationFailed, headers: headers))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            self.head = nil
        } else if !head.uri.contains("ignore-expect") {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .continue))), promise: nil)
        }
    }

    private func respond(context: ChannelHandlerContext, to head: HTTPRequestHead) {
        let components = URLComponents(string: "http://x" + head.uri)
        let path = components?.path ?? "/"
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        if path == "/ocsp" {
            guard let answer = responder.answer, let response = try? answer(Array(body.readableBytesView)) else {
                send(context, .internalServerError, "no responder", type: "text/plain")
                return
            }
            sendBytes(context, response, type: "application/ocsp-response")
            return
        }
        if path.hasPrefix("/target") {
            send(context, .ok, head.uri, type: "text/plain")
            return
        }
        if path.contains("/.well-known/") {
            let origin = "https://" + (head.headers.first(name: "Host") ?? "127.0.0.1")
            if path == "/.well-known/oauth-authorization-server/moved" {
                // The issuer `/moved`'s metadata moved to another origin: this server named localhost.
                let elsewhere = origin.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/.well-known/oauth-authorization-server"
                send(context, .movedPermanently, "moved", type: "text/plain", extra: [("Location", elsewhere)])
            } else if let json = oauth.metadata(path: path, origin: origin) {
                send(context, .ok, json, type: "application/json")
            } else {
                send(context, .notFound, "no metadata here", type: "text/plain")
            }
            return
        }
        if path.hasPrefix("/files/") {
            if let bytes = files[bytes: String(path.dropFirst("/files/".count))] {
                send(context, .ok, bytes: bytes, type: path.hasSuffix(".plist") ? "application/x-plist" : "application/octet-stream")
            } else {
                send(context, .notFound, "no such file", type: "text/plain")
            }
            return
        }
        switch path {
        case "/hello":
            send(context, .ok, "hello", type: "text/plain")
        case "/json":
            send(context, .ok, #"{"name":"transport","count":3}"#, type: "application/json; charset=utf-8")
        case "/echo":
            send(context, .ok, String(buffer: body), type: head.headers.first(name: "Content-Type") ?? "application/octet-stream", extra: [("X-Method", head.method.rawValue)])
        case "/connection":
            send(context, .ok, String(connection), type: "text/plain")
        case "/trailers":
            // A chunked body, then trailer fields: each `name=value` query item, in order.
            let headers = HTTPHeaders([("Content-Type", "text/plain"), ("Trailer", query.keys.sorted().joined(separator: ", "))])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "hello")))), promise: nil)
            let trailers = HTTPHeaders((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            context.writeAndFlush(wrapOutboundOut(.end(trailers.isEmpty ? nil : trailers)), promise: nil)
        case "/client-certificate":
            send(context, .ok, peerCertificate(context)?.subjectSummary ?? "none", type: "text/plain")
        case "/headers":
            let fields = Dictionary(head.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
            let json = (try? JSONSerialization.data(withJSONObject: fields, options: .sortedKeys)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            send(context, .ok, json, type: "application/json")
        case "/gzipped", "/gzipped-truncated", "/gzipped-corrupt":
            // "hello, compressed world\n" 100 times, gzipped by Python (65 bytes); truncated: the
            // first 40; corrupt: the gzip header and then bytes that are no deflate data.
            let bytes: [UInt8] =
                switch path {
                case "/gzipped": Array(Self.gzippedHello)
                case "/gzipped-truncated": Array(Self.gzippedHello.prefix(40))
                default: Array(Self.gzippedHello.prefix(10)) + [UInt8](repeating: 0xFF, count: 55)
                }
            let headers = HTTPHeaders([
                ("Content-Type", "text/plain"), ("Content-Encoding", "gzip"), ("Content-Length", String(bytes.count)),
                ("X-Accept-Encoding", head.headers.first(name: "Accept-Encoding") ?? "none"),
            ])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case "/set-cookie":
            // Sets each X-Set-Cookie field of the request as a Set-Cookie field; with `to`, redirects there.
            let cookies = head.headers["X-Set-Cookie"].map { ("Set-Cookie", $0) }
            if let target = query["to"] {
                send(context, .found, "moved", type: "text/plain", extra: cookies + [("Location", target)])
            } else {
                send(context, .ok, "set", type: "text/plain", extra: cookies)
            }
        case "/redirect":
            let status = HTTPResponseStatus(statusCode: Int(query["status"] ?? "302") ?? 302)
            let sts = query["sts"].map { [("Strict-Transport-Security", $0)] } ?? []
            send(context, status, "moved", type: "text/plain", extra: [("Location", query["to"] ?? "/hello")] + sts)
        case "/stalled-body":
            // A 200 that announces 100 bytes, sends 10 and then nothing more.
            let headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "100")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "partial...")))), promise: nil)
        case "/never":
            _ = tally.next("/never")
        case "/die":
            // A server that dies part-way through a response: the head and 10 of 100 bytes, then
            // the whole connection closes (over HTTP/2 the connection, not only the stream).
            let headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "100")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            // An HTTP/2 stream's parent is the connection (whose parent is the listener); an
            // HTTP/1.1 connection's parent is the listener itself.
            let connection = context.channel.parent.flatMap { $0.parent == nil ? nil : $0 } ?? context.channel
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "partial...")))))
                .whenComplete { _ in connection.close(promise: nil) }
        case "/head-only":
            // Slowloris: the head announces 100 bytes, and nothing more comes.
            let headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "100")])
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        case "/trickle":
            // A body of `bytes` bytes, one byte every `every` milliseconds.
            let bytes = Int(query["bytes"] ?? "100") ?? 100
            let every = Int64(query["every"] ?? "50") ?? 50
            let headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", String(bytes))])
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            trickle(context, left: bytes, every: .milliseconds(every))
        case "/collect":
            collected.append(Data(body.readableBytesView))
            send(context, .ok, "noted", type: "text/plain")
        case "/basic":
            let expected = "Basic " + Data("alice:wonderland".utf8).base64EncodedString()
            _ = tally.next("/basic")
            if head.headers.first(name: "Authorization") == expected {
                send(context, .ok, "welcome alice", type: "text/plain", extra: query["cc"].map { [("Cache-Control", $0)] } ?? [])
            } else {
                send(context, .unauthorized, "who are you?", type: "text/plain", extra: [("WWW-Authenticate", #"Basic realm="lab""#)])
            }
        case "/digest":
            let algorithm = query["algorithm"] ?? "MD5"
            if DigestCheck.accepts(head.headers.first(name: "Authorization"), method: head.method.rawValue, uri: head.uri, algorithm: algorithm) {
                send(context, .ok, "welcome alice (digest)", type: "text/plain", extra: query["cc"].map { [("Cache-Control", $0)] } ?? [])
            } else {
                // `first=ALGORITHM`: another Digest challenge before the one answered (RFC 7616
                // servers offer several, the strongest first). `stale=1`: the first challenge's
                // nonce expires at once, and an answer with it gets `stale=true` and a fresh one.
                let authorization = head.headers.first(name: "Authorization") ?? ""
                let expired = #"nonce="expired-nonce""#
                let staleAnswer = authorization.contains(expired)
                let nonce = query["stale"] == "1" && authorization.isEmpty ? "expired-nonce" : DigestCheck.nonce
                let challenges = ([query["first"]].compactMap { $0 } + [algorithm]).map {
                    ("WWW-Authenticate", #"Digest realm="lab", qop="auth", algorithm=\#($0), nonce="\#(nonce)", opaque="opaque-value"\#(staleAnswer ? ", stale=true" : "")"#)
                }
                send(context, .unauthorized, "digest required", type: "text/plain", extra: challenges + [("WWW-Authenticate", #"Basic realm="lab""#)])
            }
        case "/once":
            // Answers the first request of a connection only; closes on the next, unanswered, as
            // a server does that drops an idle keep-alive connection just as it is reused.
            requestsOnThisConnection += 1
            if requestsOnThisConnection > 1 {
                context.close(promise: nil)
            } else {
                send(context, .ok, "once", type: "text/plain")
            }
        case "/goaway":
            // HTTP/2: a graceful GOAWAY on the connection, then the answer on this stream.
            if let connection = context.channel.parent {
                let goAway = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: .maxID, errorCode: .noError, opaqueData: nil))
                connection.writeAndFlush(goAway, promise: nil)
            }
            send(context, .ok, "going away", type: "text/plain")
        case "/unprocessed":
            // HTTP/2: leave this request unprocessed, on the server's first connection with a
            // GOAWAY that says no stream was processed (`?by=goaway`; `&code=11`: with that error
            // code, ENHANCE_YOUR_CALM), or the first time with a REFUSED_STREAM reset
            // (`?by=refusal`); `&always=1`: every time; else answer which connection processed it.
            let always = query["always"] == "1"
            let refuses = always || (query["by"] == "refusal" ? tally.next("unprocessed") == 1 : connection == 1)
            if refuses, let parent = context.channel.parent {
                if query["by"] == "refusal", let stream = try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) {
                    parent.writeAndFlush(HTTP2Frame(streamID: stream, payload: .rstStream(.refusedStream)), promise: nil)
                } else {
                    let code = HTTP2ErrorCode(networkCode: Int(query["code"] ?? "0") ?? 0)
                    parent.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 0, errorCode: code, opaqueData: nil)), promise: nil)
                }
            } else {
                send(context, .ok, "processed on connection \(connection)", type: "text/plain")
            }
        case "/blackhole":
            // HTTP/2: from now on the server drops whatever arrives on this connection, before
            // TLS, and so answers nothing more on it, as a server whose network path went away
            // would (no PING is acknowledged).
            try? context.channel.parent?.pipeline.syncOperations.addHandler(InboundBlackhole(), position: .first)
        case "/protocol-violation":
            // HTTP/2: a DATA frame on stream 1001, which the client never opened, written below
            // this server's HTTP/2 handler (which would refuse to send it): a connection error for
            // the client. This stream gets no answer.
            if let connection = context.channel.parent, let frames = try? connection.pipeline.syncOperations.context(handlerType: NIOHTTP2Handler.self) {
                let dataOnIdleStream: [UInt8] = [0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x03, 0xE9, UInt8(ascii: "x")]
                frames.writeAndFlush(NIOAny(ByteBuffer(bytes: dataOnIdleStream)), promise: nil)
            }
        case "/header":
            send(context, .ok, "with a field", type: "text/plain", extra: [(query["name"] ?? "X-Empty", query["value"] ?? "")])
        case "/large-head":
            // A head of about `bytes` bytes: fields X-Large-0, X-Large-1, ... of 4,000 letters each.
            let bytes = Int(query["bytes"] ?? "0") ?? 0
            let fields = stride(from: 0, to: bytes, by: 4_000).enumerated().map { index, start in
                ("X-Large-\(index)", String(repeating: "a", count: min(4_000, bytes - start)))
            }
            send(context, .ok, "large head", type: "text/plain", extra: fields)
        case "/flaky":
            let count = tally.next(query["key"] ?? "")
            guard count > Int(query["failures"] ?? "0") ?? 0 else {
                if query["drop"] == "1" { return context.close(promise: nil) }
                if query["cut"] == "1" { return cutShort(context) }
                let status = HTTPResponseStatus(statusCode: Int(query["status"] ?? "503") ?? 503)
                return send(context, status, "failure on request \(count)", type: "text/plain", extra: query["retry-after"].map { [("Retry-After", $0)] } ?? [])
            }
            send(context, .ok, "recovered on request \(count), X-Attempt \(head.headers.first(name: "X-Attempt") ?? "none")", type: "text/plain")
        case "/loop":
            send(context, .found, "again", type: "text/plain", extra: [("Location", "/loop")])
        case "/early-hints":
            // An informational 103 before the answer (RFC 8297).
            let hints = HTTPHeaders([("Link", "</style.css>; rel=preload; as=style")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .custom(code: 103, reasonPhrase: "Early Hints"), headers: hints))), promise: nil)
            send(context, .ok, "after hints", type: "text/plain")
        case "/ranged":
            serveRanged(context, head: head, query: query)
        case "/cached":
            serveCached(context, head: head, query: query)
        case "/oauth/token":
            let (status, json) = oauth.answerTokenRequest(
                headers: head.headers, body: String(buffer: body), clientCertificate: peerCertificate(context)?.subjectSummary, query: query
            )
            send(context, HTTPResponseStatus(statusCode: status), json, type: "application/json")
        case "/signed":
            let url = URL(string: "\(isSecure ? "https" : "http")://\(head.headers.first(name: "Host") ?? "127.0.0.1")\(head.uri)")!
            let answer = signatures.answer(method: head.method.rawValue, url: url, headers: head.headers.map { ($0.name, $0.value) }, body: Data(body.readableBytesView))
            send(context, HTTPResponseStatus(statusCode: answer.status), answer.body, type: "text/plain", extra: answer.fields)
        case "/payments":
            let field = query["field"] ?? "Idempotency-Key"
            switch payments.answer(keyFields: head.headers[field], body: Data(body.readableBytesView), query: query) {
            case .dropConnection:
                context.close(promise: nil)
            case .respond(let status, let text, let fields):
                send(context, HTTPResponseStatus(statusCode: status), text, type: "text/plain", extra: fields.map { ($0.key, $0.value) })
            }
        case "/oauth/api":
            if let token = oauth.acceptedToken(head.headers.first(name: "Authorization")) {
                send(context, .ok, "hello with \(token)", type: "text/plain")
            } else {
                send(context, .unauthorized, "token refused", type: "text/plain", extra: [("WWW-Authenticate", #"Bearer error="invalid_token""#)])
            }
        default:
            if path.hasPrefix("/status/"), let code = Int(path.dropFirst("/status/".count)) {
                send(context, HTTPResponseStatus(statusCode: code), "status \(code)", type: "text/plain")
            } else if path.hasPrefix("/bytes/"), let count = Int(path.dropFirst("/bytes/".count)) {
                stream(context, count: count)
            } else if path.hasPrefix("/delay/"), let milliseconds = Int64(path.dropFirst("/delay/".count)) {
                _ = tally.next("/delay")
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .milliseconds(milliseconds)) {
                    let (handler, context) = loopBound.value
                    handler.send(context, .ok, "waited \(milliseconds) ms", type: "text/plain")
                }
            } else if path.hasPrefix("/chunked/"), let count = Int(path.dropFirst("/chunked/".count)) {
                stream(context, count: count, announcingLength: false)
            } else if path == "/endless" {
                streamForever(context)
            } else {
                send(context, .notFound, "no route \(path)", type: "text/plain")
            }
        }
    }

    /// `gzip.compress(b"hello, compressed world\n" * 100, mtime=0)` in Python.
    static let gzippedHello: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0x48, 0xce, 0xcf, 0x2d,
        0x28, 0x4a, 0x2d, 0x2e, 0x4e, 0x4d, 0x51, 0x28, 0xcf, 0x2f, 0xca, 0x49, 0xe1, 0xca, 0x18, 0x15, 0x1f, 0x15, 0x1f, 0x15, 0x1f,
        0x15, 0x1f, 0x15, 0x1f, 0x15, 0x1f, 0x15, 0x1f, 0x15, 0x1f, 0x15, 0x27, 0x4b, 0x1c, 0x00, 0xe8, 0x8b, 0x00, 0x59, 0x60, 0x09,
        0x00, 0x00,
    ]

    /// `/ranged`: ``HTTPTestServer/rangedBody(size:version:)`` with range requests.
    /// The certificate the client presented on this connection, if any.
    private func peerCertificate(_ context: ChannelHandlerContext) -> DERCertificate? {
        // Over HTTP/2 the stream's parent holds the connection's TLS (over HTTP/1.1 the
        // parent is the listening channel, maybe of another event loop).
        let parent = context.channel.parent.flatMap { $0.eventLoop.inEventLoop ? $0 : nil }
        let tls = (try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self))
            ?? (try? parent?.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self))
        return (tls?.peerCertificate).flatMap { try? DERCertificate(derBytes: $0.toDERBytes()) }
    }

    /// `/cached`: see the type's documentation.
    private func serveCached(_ context: ChannelHandlerContext, head: HTTPRequestHead, query: [String: String]) {
        let key = query["key"] ?? ""
        let count = tally.next(key)
        var fields: [(String, String)] = [("X-Request-Number", "\(count)")]
        if let after = query["fail-after"].flatMap(Int.init), count > after {
            switch query["fail"] {
            case "close": context.close(promise: nil)
            case "hang": break
            case let status: send(context, HTTPResponseStatus(statusCode: Int(status ?? "") ?? 503), "failure \(count)", type: "text/plain", extra: fields)
            }
            return
        }
        if let after = query["nostore-after"].flatMap(Int.init), count > after {
            fields.append(("Cache-Control", "no-store"))
        } else if let control = query["cc"] {
            fields.append(("Cache-Control", control))
        }
        let tag = "\"v1\""
        let modified = "Wed, 21 Oct 2015 07:28:00 GMT"
        if query["etag"] == "1" { fields.append(("ETag", tag)) }
        if query["modified"] == "1" { fields.append(("Last-Modified", modified)) }
        if let vary = query["vary"] { fields.append(("Vary", vary)) }
        if let age = query["age"] { fields.append(("Age", age)) }
        if let expires = query["expires"] { fields.append(("Expires", expires)) }
        if let location = query["location"] { fields.append(("Location", location)) }
        let notModified = (query["etag"] == "1" && head.headers.first(name: "If-None-Match") == tag)
            || (query["modified"] == "1" && head.headers.first(name: "If-Modified-Since") == modified)
        if notModified {
            fields.append(("X-Revalidated", "\(count)"))
            fields.append(("Content-Length", "0"))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .notModified, headers: HTTPHeaders(fields)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        // A cookie set by the full answers only, never by a 304.
        if let cookie = query["cookie"] { fields.append(("Set-Cookie", cookie)) }
        let status = HTTPResponseStatus(statusCode: Int(query["status"] ?? "200") ?? 200)
        if let size = query["size"].flatMap(Int.init) {
            return send(context, status, String(repeating: "x", count: size), type: "text/plain", extra: fields)
        }
        let varied = query["vary"].map { " for \(head.headers[$0].joined(separator: ", "))" } ?? ""
        send(context, status, "body \(count) of \(key)\(varied)", type: "text/plain", extra: fields)
    }

    private func serveRanged(_ context: ChannelHandlerContext, head: HTTPRequestHead, query: [String: String]) {
        let size = Int(query["size"] ?? "") ?? 1000
        let count = tally.next(query["key"] ?? "")
        let version = count > Int(query["change-after"] ?? "")  ?? Int.max ? 2 : 1
        let tag = query["etag"].map { (query["weak"] == "1" ? "W/" : "") + "\"\($0)-v\(version)\"" }
        let modified = query["modified"] == "1" ? "Sun, 0\(version) Nov 2026 10:00:00 GMT" : nil
        var headers = HTTPHeaders([("Content-Type", "application/octet-stream")])
        if let tag { headers.add(name: "ETag", value: tag) }
        if let modified { headers.add(contentsOf: [("Last-Modified", modified), ("Date", "Mon, 23 Nov 2026 10:00:00 GMT")]) }
        headers.add(name: "X-Range-Asked", value: head.headers.first(name: "Range") ?? "none")
        headers.add(name: "X-If-Range", value: head.headers.first(name: "If-Range") ?? "none")
        var (status, start) = (HTTPResponseStatus.ok, 0)
        if query["partial-anyway"] == "1" {
            // A broken server: a part when the whole was asked for.
            headers.add(contentsOf: [("Content-Range", "bytes 0-9/\(size)"), ("Content-Length", "10")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .partialContent, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: HTTPTestServer.rangedBody(size: 10))))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        if query["ignore-range"] != "1", let range = head.headers.first(name: "Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
            let first = Int(range.dropFirst("bytes=".count).dropLast())
        {
            let condition = head.headers.first(name: "If-Range")
            if condition == nil || condition == tag || condition == modified {
                guard first < size else {
                    headers.add(contentsOf: [("Content-Range", "bytes */\(size)"), ("Content-Length", "0")])
                    context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .rangeNotSatisfiable, headers: headers))), promise: nil)
                    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                    return
                }
                (status, start) = (.partialContent, first)
                let shift = Int(query["shift"] ?? "") ?? 0
                headers.add(name: "Content-Range", value: "bytes \(start + shift)-\(size - 1)/\(size)")
            }
        }
        headers.add(name: "Content-Length", value: String(size - start))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        let isCut = count <= Int(query["cuts"] ?? "") ?? 0
        let end = isCut ? min(size, start + (Int(query["cut"] ?? "") ?? 0)) : size
        let body = HTTPTestServer.rangedBody(size: size, version: version)
        var offset = start
        while offset < end {
            let next = min(end, offset + 64 * 1024)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body[offset..<next])))), promise: nil)
            offset = next
        }
        guard isCut else { return context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil) }
        let channel = context.channel
        context.flush()
        context.eventLoop.scheduleTask(in: .milliseconds(20)) { channel.close(promise: nil) }
    }

    /// A 200 that announces 100 bytes, sends 10 (`partial…`) and closes the connection.
    private func trickle(_ context: ChannelHandlerContext, left: Int, every interval: TimeAmount) {
        guard left > 0 else { return context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil) }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: interval) {
            let (handler, context) = loopBound.value
            guard context.channel.isActive else { return }
            context.writeAndFlush(handler.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "."))))).whenSuccess {
                let (handler, context) = loopBound.value
                handler.trickle(context, left: left - 1, every: interval)
            }
        }
    }

    private func cutShort(_ context: ChannelHandlerContext) {
        let headers = HTTPHeaders([("Content-Type", "text/plain"), ("Content-Length", "100")])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "partial...")))))
            .whenComplete { _ in channel.close(promise: nil) }
    }

    private func sendBytes(_ context: ChannelHandlerContext, _ bytes: [UInt8], type: String) {
        let headers = HTTPHeaders([("Content-Type", type), ("Content-Length", String(bytes.count))])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func send(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ text: String, type: String, extra: [(String, String)] = []) {
        send(context, status, bytes: Array(text.utf8), type: type, extra: extra)
    }

    private func send(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, bytes: [UInt8], type: String, extra: [(String, String)] = []) {
        var headers = HTTPHeaders([("Content-Type", type), ("Content-Length", String(bytes.count))])
        headers.add(contentsOf: extra)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    private func stream(_ context: ChannelHandlerContext, count: Int, announcingLength: Bool = true) {
        let length = announcingLength ? ("Content-Length", String(count)) : ("Transfer-Encoding", "chunked")
        let headers = HTTPHeaders([("Content-Type", "application/octet-stream"), length])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        var remaining = count
        let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)
        while remaining > 0 {
            let size = min(remaining, chunk.readableBytes)
            context.write(wrapOutboundOut(.body(.byteBuffer(chunk.getSlice(at: 0, length: size)!))), promise: nil)
            remaining -= size
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// A chunked body that never ends: the next chunk is written when the last one is sent,
    /// until the write fails because the client closed the connection.
    private func streamForever(_ context: ChannelHandlerContext) {
        let headers = HTTPHeaders([("Content-Type", "application/octet-stream"), ("Transfer-Encoding", "chunked")])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        @Sendable func writeNext() {
            let (handler, context) = loopBound.value
            // The next write goes through the event loop's queue: a write that completes at once
            // would otherwise call the next one from within itself, without end (a stack overflow
            // with a fast reader).
            let loop = context.eventLoop
            context.writeAndFlush(handler.wrapOutboundOut(.body(.byteBuffer(chunk)))).whenSuccess { loop.execute { writeNext() } }
        }
        writeNext()
    }
}

/// The server's side of HTTP Digest for user alice / wonderland, computed independently of the
/// session's code.
enum DigestCheck {
    static let nonce = "7c2a9d0f3b1e"

    static func accepts(_ authorization: String?, method: String, uri: String, algorithm: String) -> Bool {
        guard let authorization, authorization.hasPrefix("Digest ") else { return false }
        var fields: [String: String] = [:]
        for part in authorization.dropFirst("Digest ".count).components(separatedBy: ", ") {
            let pieces = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pieces.count == 2 else { continue }
            fields[pieces[0]] = pieces[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        func hash(_ text: String) -> String {
            let data = Data(text.utf8)
            let digest: [UInt8] = algorithm == "SHA-256" ? Array(SHA256.hash(data: data)) : Array(Insecure.MD5.hash(data: data))
            return digest.map { String(format: "%02x", $0) }.joined()
        }
        guard fields["username"] == "alice", fields["nonce"] == nonce, fields["uri"] == uri, fields["qop"] == "auth",
            fields["opaque"] == "opaque-value", let nc = fields["nc"], let cnonce = fields["cnonce"]
        else { return false }
        let ha1 = hash("alice:lab:wonderland")
        let ha2 = hash("\(method):\(uri)")
        return fields["response"] == hash("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
    }
}

/// The TLS context new connections get, replaceable while the server runs.
final class SSLContextBox: @unchecked Sendable {
    private let lock = NSLock()
    private var context: NIOSSLContext?

    func get() -> NIOSSLContext? { lock.withLock { context } }
    func set(_ context: NIOSSLContext) { lock.withLock { self.context = context } }
}

/// Closes a connection once `IdleStateHandler` says it has been idle.
private final class IdleConnectionCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else { return context.fireUserInboundEventTriggered(event) }
        context.close(promise: nil)
    }
}
