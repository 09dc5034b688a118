import Foundation
import NIOCore
import NIOHTTP1
import NIOWebSocket
import TransportSecurityNIO

extension SecureSession {
    /// Opens a WebSocket (RFC 6455) to `url`, hands it to `body`, and closes it when `body`
    /// returns (status 1000) or throws (1001).
    ///
    /// The connection is the session's: a `wss://` server is decided by the session's trust
    /// evaluator, transport rules and pin sets, the client identity is presented, proxies, address
    /// overrides and HSTS apply (a `ws://` URL of an HSTS host becomes `wss://`), cookies of the
    /// jar go with the opening request. It is a connection of its own, HTTP/1.1 (ALPN offers
    /// only `http/1.1`), never pooled. The TLS handshake and the server's answer to the upgrade
    /// must come within the connect timeout and the request timeout.
    ///
    /// ```swift
    /// try await session.webSocket(URL(string: "wss://stream.partner.example/v1/quotes")!, subprotocols: ["quotes.v1"]) { socket in
    ///     try await socket.send(#"{"subscribe":"EURUSD"}"#)
    ///     for try await message in socket.messages {
    ///         if case .text(let quote) = message { print(quote) }
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - url: A `ws://` or `wss://` URL.
    ///   - headers: Header fields of the opening request (an `Authorization`, an `Origin`).
    ///   - subprotocols: The subprotocols offered, in order of preference
    ///     (`Sec-WebSocket-Protocol`); the server must choose one of them or none.
    ///   - maximumMessageSize: The largest message taken, fragments joined: a larger one closes
    ///     the WebSocket with 1009 and fails ``WebSocketMessages`` with
    ///     ``SecureSessionError/responseTooLarge(limit:)``.
    ///   - body: What to do with the open WebSocket.
    /// - Throws: ``SecureSessionError``: `trustRejected` (the decision), `unacceptableStatus` for a
    ///   server that answers the upgrade otherwise (401, 403, 200…, with the start of its body),
    ///   `invalidResponse` for a `101` that breaks RFC 6455 (a wrong `Sec-WebSocket-Accept`, a
    ///   subprotocol or extension not offered), and the session's connection, TLS, proxy and
    ///   timeout errors; then what `body` throws.
    public func webSocket<Result: Sendable>(
        _ url: URL,
        headers: [(name: String, value: String)] = [],
        subprotocols: [String] = [],
        maximumMessageSize: Int = 16 << 20,
        _ body: (SecureWebSocket) async throws -> Result
    ) async throws -> Result {
        let request = withCookies(SecureRequest(.get, url: try Self.httpURL(ofWebSocket: url), headers: headers))
        if let requirement = configuration.responses.signatures, requirement.applies(to: request.url) {
            throw SecureSessionError.invalidRequest(
                "the responses of \(request.url.host(percentEncoded: false) ?? "the host") must carry a verified signature (responses.signatures), and a WebSocket's messages carry none"
            )
        }
        guard maximumMessageSize > 0 else { throw SecureSessionError.invalidRequest("maximumMessageSize must be positive, not \(maximumMessageSize)") }
        if let malformation = request.malformation() { throw SecureSessionError.invalidRequest(malformation) }
        var upgradedRequest = request
        upgradedRequest.url = upgradedByHSTS(request.url)
        let key = try connectionKey(for: upgradedRequest).offeringHTTP1Only()
        let upgrade = WebSocketUpgrade(
            requestHead: requestHead(upgradedRequest, key: key, body: nil),
            subprotocols: subprotocols,
            maximumMessageSize: maximumMessageSize
        )
        let tlsContext = try tlsContexts.context(for: key.rule, identity: key.identity, isHTTP1Only: true)
        let proxyTLSContext = key.proxy?.kind == .https ? try tlsContexts.proxyContext() : nil
        let webSocketURL = Self.webSocketURL(of: upgradedRequest.url)
        let name = webSocketURL.redacted
        let limit = configuration.timeouts.request
        guard limit > .zero else { throw SecureSessionError.timeout(limit) }
        let (established, channel, head) = try await withDeadline(limit, onTimeout: {}) { deadline in
            let established = try await Connector.establish(
                key: key,
                tlsContext: tlsContext,
                proxyTLSContext: proxyTLSContext,
                deadline: deadline,
                in: connectorEnvironment,
                http1: { upgrade.configure($0) },
                discardHTTP1: { _ in }
            )
            let connection = established.channel
            guard case .http1_1(let answer) = established.negotiated else {
                try? await connection.close()
                throw SecureSessionError.invalidResponse("\(name): the server chose HTTP/2, which was not offered")
            }
            // The server's answer to the upgrade (and a refusal's body), within the deadline.
            deadline.enter(.awaitingResponse(key))
            do {
                switch try await deadline.interrupting(with: { connection.close(promise: nil) }, { try await answer.get() }) {
                case .upgraded(let channel, let head):
                    return (established, channel, head)
                case .invalid(let problem):
                    throw SecureSessionError.invalidResponse("\(name): \(problem)")
                case .refused(let refusal):
                    let refused = try await deadline.interrupting(with: { connection.close(promise: nil) }, { try await refusal.get() })
                    throw SecureSessionError.unacceptableStatus(code: Int(refused.head.status.code), body: Data(refused.body))
                }
            } catch let error as SecureSessionError {
                try? await connection.close()
                throw error
            } catch {
                try? await connection.close()
                if let ending = deadline.ending { throw ending }
                // swift-nio's upgrade handler, removed with the connection, fails its answer so.
                let detail = error is ChannelError ? "the server closed the connection" : ConnectionFailureText.describe(error)
                throw SecureSessionError.connectionFailed("\(name): \(detail) before answering the upgrade")
            }
        }
        return try await channel.executeThenClose { inbound, _ in
            let connection = WebSocketConnection(inbound: inbound, channel: channel.channel, maximumMessageSize: maximumMessageSize, name: name)
            let socket = SecureWebSocket(
                url: webSocketURL,
                response: ResponseHead(head),
                subprotocol: head.headers.first(name: "Sec-WebSocket-Protocol"),
                trustDecision: established.trustDecision,
                connection: connection
            )
            do {
                let result = try await body(socket)
                try? await connection.close(WebSocketClose(code: 1000))
                return result
            } catch {
                try? await connection.close(WebSocketClose(code: 1001))
                throw error
            }
        }
    }

    /// The `http(s)://` URL of the opening request of a `ws(s)://` URL.
    static func httpURL(ofWebSocket url: URL) throws -> URL {
        guard let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else {
            throw SecureSessionError.invalidURL("\(url.redacted): a WebSocket URL is ws:// or wss://")
        }
        guard components.fragment == nil else {
            throw SecureSessionError.invalidURL("\(url.redacted): a WebSocket URL has no fragment (RFC 6455 §3)")
        }
        components.scheme = scheme == "wss" ? "https" : "http"
        guard let http = components.url else { throw SecureSessionError.invalidURL("\(url.redacted)") }
        return http
    }

    /// The `ws(s)://` URL of an `http(s)://` one.
    static func webSocketURL(of url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.scheme = components.scheme?.lowercased() == "https" ? "wss" : "ws"
        return components.url ?? url
    }
}
