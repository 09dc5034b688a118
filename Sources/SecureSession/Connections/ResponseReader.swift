import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import NIOSSL
import TransportSecurityNIO

/// A response read to its end: its head, and the trailer fields that followed its body
/// (`nil`: none came).
struct ReadResponse: Sendable {
    let head: HTTPResponseHead
    let trailers: HTTPHeaders?
}

/// Writes one request to a channel's outbound side and reads its response from the inbound side:
/// the same for an HTTP/1.1 connection and for an HTTP/2 stream (translated to HTTP/1 parts).
enum ResponseReader {
    /// Reads one response: its head, its body into `sink` (an empty part first, when the head
    /// arrives), and its trailer fields (HTTP/1.1's chunked trailer, HTTP/2's trailing HEADERS).
    /// 1xx responses (100 Continue, 103 Early Hints) that precede it are passed over; a final
    /// head the session cannot read a response from (`unreadableReason`) fails.
    static func read<Responses: AsyncIteratorProtocol>(
        from responses: inout Responses,
        into sink: ResponseBodySink
    ) async throws -> ReadResponse where Responses.Element == HTTPClientResponsePart {
        var head: HTTPResponseHead?
        while let part = try await responses.next() {
            switch part {
            case .head(let received):
                if received.isInformational { continue }
                if let reason = received.unreadableReason { throw SecureSessionError.invalidResponse(reason) }
                head = received
                // An empty part says the head came: from now on the request is reading the body
                // (what a timeout names: a server that stalls after its head is not "waiting for
                // the response").
                try await sink(received, ByteBuffer())
            case .body(let buffer):
                guard let head else { throw SecureSessionError.invalidResponse("a body came before the response head") }
                try await sink(head, buffer)
            case .end(let trailers):
                guard let head else { throw SecureSessionError.invalidResponse("a response ended before its head") }
                return ReadResponse(head: head, trailers: trailers)
            }
        }
        throw SecureSessionError.connectionFailed("the server closed the connection before the response ended")
    }

    /// What the server answered before the request was written whole, when writing it failed
    /// with `writeError` (a server may answer a 413 or a 401 and close before taking all of the
    /// body: that answer is the outcome); else `writeError` itself. An upload file that could not
    /// be read, or a cancelled task, is the outcome as it is.
    static func answer<Responses: AsyncIteratorProtocol>(
        sentBefore writeError: any Error,
        from responses: inout Responses,
        into sink: ResponseBodySink
    ) async throws -> ReadResponse where Responses.Element == HTTPClientResponsePart {
        if case .unreadableUpload? = writeError.sessionFailureReason { throw writeError }
        if writeError is CancellationError { throw writeError }
        guard let early = try? await read(from: &responses, into: sink) else { throw writeError }
        return early
    }

    /// The request parts of `head` and a body held in memory (a streamed body is sent apart,
    /// part by part).
    static func parts(head: HTTPRequestHead, body: RequestBodySource?) -> [HTTPClientRequestPart] {
        var parts: [HTTPClientRequestPart] = [.head(head)]
        if let buffer = body?.bytesWithHead { parts.append(.body(.byteBuffer(buffer))) }
        parts.append(.end(nil))
        return parts
    }

    /// The failure of a request on a connection whose channel met `closingError`: a TLS alert
    /// that closed the connection explains the failure better than what the request saw of it
    /// (a closed stream, a GOAWAY, a closed connection), and outranks a request not processed:
    /// a new connection would meet the same alert (a server refusing the client's certificate
    /// just after TLS 1.3's handshake). A connection closed without TLS's close_notify does not
    /// outrank a `GOAWAY` that says the request was not processed or needs HTTP/1.1: nothing of
    /// its response can have been cut short (servers that simply close their sockets after a
    /// `GOAWAY` do so).
    static func failure(_ error: any Error, on key: ConnectionKey, closingError: (any Error)?) -> any Error {
        if error is ConsumerError { return error }
        let goesAgain = error is RequestNotProcessed || error is HTTP1Required
        if let closingError, isTLSError(closingError), !(goesAgain && TLSFailureText.isUncleanShutdown(closingError)) {
            return failure(closingError, on: key)
        }
        if goesAgain || error is CertificateRequestedByRenegotiation { return error }
        return failure(error, on: key)
    }

    /// Whether `error` is TLS's own: an alert, a handshake failure.
    static func isTLSError(_ error: any Error) -> Bool { error is NIOSSLError || error is BoringSSLError }

    /// What an error met while exchanging on `key`'s connection means for the request.
    static func failure(_ error: any Error, on key: ConnectionKey) -> any Error {
        switch error {
        case let error as SecureSessionError:
            return error
        case let error as ClosedWithoutCloseNotify:
            return error
        case let error as IOError:
            // The socket's own failure: "Connection reset by peer" in words, not NIO's dump of
            // the system call.
            return SecureSessionError.connectionFailed("\(key): \(ConnectionFailureText.describe(error))")
        case let error as ConsumerError:
            return error
        case HTTPParserError.invalidEOFState:
            return SecureSessionError.connectionFailed("\(key): the server closed the connection before the response ended")
        case let error as HTTPParserError:
            // The server answered, but not in HTTP: not a network failure, and not retried.
            return SecureSessionError.invalidResponse("\(key): \(error) (\(explanation(of: error)))")
        case is NIOHTTPDecoderError:  // its one error: unsolicitedResponse
            return SecureSessionError.invalidResponse("\(key): the server sent a response no request had asked for")
        case let error as NIOHTTP2Errors.InvalidStatusValue:
            return SecureSessionError.invalidResponse("\(key): the HTTP/2 status '\(error.value)' is not a three-digit number")
        case NIOHTTPDecompression.DecompressionError.limit:
            return SecureSessionError.invalidResponse("\(key): the compressed body inflates beyond the session's decompression limit (a decompression bomb?)")
        case NIOHTTPDecompression.DecompressionError.inflationError(let code):
            return SecureSessionError.invalidResponse("\(key): the compressed body is malformed (zlib error \(code))")
        case let error as NIOHTTPDecompression.ExtraDecompressionError:
            let what = error == .truncatedData ? "ends before the compressed data does" : "has data after the end of the compressed data"
            return SecureSessionError.invalidResponse("\(key): the compressed body \(what)")
        case BoringSSLError.wantX509Lookup:
            // The certificate callback could not answer at once, after the handshake.
            return CertificateRequestedByRenegotiation(
                description: "\(key): the server asked for a client certificate by renegotiating TLS during the request, when a challenge handler cannot be asked"
            )
        case NIOSSLError.uncleanShutdown:
            // After the handshake; the session words it by how far the response got.
            return ClosedWithoutCloseNotify(server: "\(key)")
        default:
            // A TLS alert after the handshake: the server refused the client certificate (TLS
            // 1.3 refuses it only after the client's side of the handshake has completed).
            if isTLSError(error) {
                // Without a challenge handler, the session's identity is what was presented.
                let presented = key.handler == nil ? key.identity != nil : nil
                return SecureSessionError.tlsFailure(
                    "\(key): \(TLSFailureText.describe(error, clientCertificatePresented: presented, presentedIdentity: key.presentedIdentity))"
                )
            }
            return SecureSessionError.connectionFailed("\(key): \(error)")
        }
    }

    /// What a parser error means, in words.
    static func explanation(of error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow: return "the response head is larger than swift-nio's parser accepts (\(Connector.responseHeadLimit / 1024) KiB)"
        case .unexpectedContentLength, .invalidContentLength: return "conflicting, malformed or misplaced Content-Length headers"
        case .invalidConstant, .invalidVersion: return "the server did not answer in HTTP/1.x"
        case .invalidStatus: return "the status line is malformed"
        case .invalidChunkSize: return "the chunked body is malformed"
        case .invalidHeaderToken, .invalidCharactersUsed: return "a header holds characters HTTP does not allow"
        // swift-nio reads llhttp's other errors as `.unknown`; of those a response can cause,
        // these are the two.
        case .unknown: return "a malformed Transfer-Encoding, one beside Content-Length, or a line that does not end in CRLF"
        default: return "the response is not valid HTTP/1.1"
        }
    }
}

/// An error thrown by the consumer of ``SecureSession/stream(_:into:)``: carried through the
/// connection layers as it is (not taken for a connection failure), and rethrown to the caller.
struct ConsumerError: Error {
    let error: any Error
}
