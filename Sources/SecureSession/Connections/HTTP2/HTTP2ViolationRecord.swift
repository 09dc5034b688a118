import NIOConcurrencyHelpers
import NIOHTTP2

/// What the client's HTTP/2 handler found wrong in what the server sent on one connection: a
/// response whose DATA does not add up to its `content-length`, a header field HTTP/2 forbids, a
/// header block too large. swift-nio-http2 resets the stream (or ends the connection) itself and
/// reports the finding on the connection's pipeline, apart from the stream; a request whose
/// stream the client reset takes the finding from here to say why, and every request on a
/// connection the client ended reads the finding that ended it.
final class HTTP2ViolationRecord: Sendable {
    private struct Findings {
        /// Findings that ended a stream, not yet taken, oldest first (a few at most: each is
        /// taken by the request whose stream it ended).
        var streams: [String] = []
        /// The finding that ended the connection.
        var connection: String?
    }

    private let found = NIOLockedValueBox(Findings())
    private static let kept = 16

    /// Notes `error` when it is a finding of swift-nio-http2's: one that ended the connection
    /// when the client's `GOAWAY` has gone before it (swift-nio-http2 writes the `GOAWAY`, then
    /// reports), else one that ended a stream.
    ///
    /// Errors about the client's own frames on a connection that is ending are no finding:
    /// a stream opened after the server's `GOAWAY` (`CreatedStreamAfterGoaway`), and any frame
    /// once both sides are done (`IOOnClosedConnection`, which swift-nio-http2 also reports, with
    /// a `GOAWAY` of its own, for a `RST_STREAM` the server sends after its `GOAWAY` as nginx does).
    func note(_ error: any Error, endsConnection: Bool) {
        guard error is any NIOHTTP2Error, !(error is NIOHTTP2Errors.StreamClosed) else { return }
        guard !(error is NIOHTTP2Errors.IOOnClosedConnection), !(error is NIOHTTP2Errors.CreatedStreamAfterGoaway) else { return }
        let words = Self.words(for: error)
        found.withLockedValue { found in
            if endsConnection {
                found.connection = found.connection ?? words
            } else if found.streams.count < Self.kept {
                found.streams.append(words)
            }
        }
    }

    /// The oldest finding that ended a stream and is not yet taken, if any.
    func takeStreamFinding() -> String? {
        found.withLockedValue { $0.streams.isEmpty ? nil : $0.streams.removeFirst() }
    }

    /// The finding that ended the connection, if any.
    var connectionFinding: String? { found.withLockedValue { $0.connection } }

    /// What the server did wrong, in words.
    static func words(for error: any Error) -> String {
        switch error {
        case is NIOHTTP2Errors.ContentLengthViolated:
            return "its DATA did not add up to the content-length it announced"
        case let error as NIOHTTP2Errors.InvalidHTTP2HeaderFieldName:
            return "the header field name '\(error.fieldName)', which HTTP/2 does not allow (names are lowercase tokens)"
        case let error as NIOHTTP2Errors.InvalidHTTP2HeaderFieldValue:
            return "the header field \(error.name) holds a NUL, CR or LF"
        case let error as NIOHTTP2Errors.ForbiddenHeaderField:
            return "the connection-specific header field \(error.name), which HTTP/2 forbids"
        case let error as NIOHTTP2Errors.MissingPseudoHeader:
            return "no \(error.name) pseudo-header"
        case let error as NIOHTTP2Errors.DuplicatePseudoHeader:
            return "the pseudo-header \(error.name) twice"
        case let error as NIOHTTP2Errors.UnknownPseudoHeader:
            return "the unknown pseudo-header \(error.name)"
        case is NIOHTTP2Errors.InvalidPseudoHeaders:
            return "pseudo-header fields a response does not have (it has one: :status)"
        case is NIOHTTP2Errors.PseudoHeaderAfterRegularHeader:
            return "a pseudo-header after a regular header field"
        case let error as NIOHTTP2Errors.NoSuchStream:
            return "a frame on stream \(Int(error.streamID)), which the client never opened"
        case is NIOHTTP2Errors.ExcessivelyLargeHeaderBlock:
            return "a header block larger than the client accepts"
        case is NIOHTTP2Errors.UnableToParseFrame:
            // Among others, what the HPACK decoder throws when a header list decodes past the limit.
            return "a frame the client could not decode (malformed, or a header block over the client's limit of \(Connector.responseHeadLimit / 1024) KiB once decoded)"
        case is NIOHTTP2Errors.PushInViolationOfSetting:
            return "a PUSH_PROMISE, though the client turned server push off"
        case is NIOHTTP2Errors.InvalidFlowControlWindowSize, is NIOHTTP2Errors.InvalidWindowIncrementSize:
            return "a WINDOW_UPDATE of zero, or one taking a flow-control window past 2^31-1"
        case let error as NIOHTTP2Errors.InvalidSetting:
            return "the setting \(error.setting.parameter) with the invalid value \(error.setting.value)"
        case is NIOHTTP2Errors.ExcessiveControlFrames:
            return "a flood of control frames (PING, SETTINGS) the client would have to answer"
        case is NIOHTTP2Errors.ExcessiveContinuationFrames:
            return "a header block spread over more CONTINUATION frames than the client accepts"
        case is NIOHTTP2Errors.ExcessiveEmptyDataFrames:
            return "a flood of empty DATA frames"
        case is NIOHTTP2Errors.ExcessiveRSTFrames, is NIOHTTP2Errors.ExcessiveStreamErrors, is NIOHTTP2Errors.ExcessiveNumberOfGlitches:
            return "more broken or reset streams than the client tolerates on one connection"
        default:
            return "\(type(of: error))"
        }
    }
}
