import NIOConcurrencyHelpers
import NIOHTTP2

/// What was said about the end of one HTTP/2 connection: whether it is going away (the server's
/// `GOAWAY`, or the client's own after a connection error) and the last stream the server's
/// `GOAWAY` says it processed, above which it processed nothing (RFC 9113 §6.8).
final class GoAwayRecord: Sendable {
    private struct State {
        var isGoingAway = false
        var serverGoAway: ServerGoAway?
        var endedByClient = false
    }

    /// What the server's `GOAWAY` said: the last stream it processed and its error code
    /// (`NO_ERROR` for a graceful end).
    struct ServerGoAway {
        var lastProcessed: HTTP2StreamID
        var errorCode: HTTP2ErrorCode
    }

    private let state = NIOLockedValueBox(State())
    /// Runs when the server's first `GOAWAY` arrives.
    private let onServerGoAway = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)

    /// Runs `action` when the server's `GOAWAY` arrives (at once if it has), on the event loop
    /// that read it.
    func whenServerGoesAway(_ action: @escaping @Sendable () -> Void) {
        onServerGoAway.withLockedValue { $0 = action }
        if state.withLockedValue({ $0.serverGoAway != nil }) { action() }
    }

    /// Whether either side said the connection is ending: it takes no new stream.
    var isGoingAway: Bool { state.withLockedValue { $0.isGoingAway } }

    /// Notes the server's `GOAWAY`; a later one may only lower the last processed stream, and an
    /// error code, once given, stays.
    func serverWentAway(lastProcessed: HTTP2StreamID, errorCode: HTTP2ErrorCode) {
        defer { onServerGoAway.withLockedValue { $0 }?() }
        state.withLockedValue { state in
            state.isGoingAway = true
            let earlier = state.serverGoAway
            state.serverGoAway = ServerGoAway(
                lastProcessed: min(lastProcessed, earlier?.lastProcessed ?? lastProcessed),
                errorCode: earlier.map { $0.errorCode == .noError ? errorCode : $0.errorCode } ?? errorCode
            )
        }
    }

    /// Notes the client's own `GOAWAY` (a connection error).
    func clientWentAway() {
        state.withLockedValue { state in
            state.isGoingAway = true
            state.endedByClient = true
        }
    }

    /// Whether the client ended the connection with a `GOAWAY` of its own (a connection error
    /// its HTTP/2 handler found).
    var isEndedByClient: Bool { state.withLockedValue { $0.endedByClient } }

    /// Whether the server's `GOAWAY` is graceful (`NO_ERROR`, never an error code) and says it
    /// processed at least stream 1, the first a client opens: the server ended the connection
    /// after serving requests on it.
    var endedGracefullyAfterProcessing: Bool {
        state.withLockedValue { state in
            guard let goAway = state.serverGoAway else { return false }
            return goAway.errorCode == .noError && goAway.lastProcessed > .rootStream
        }
    }

    /// The error code of the server's `GOAWAY`, if it sent one.
    var serverErrorCode: HTTP2ErrorCode? { state.withLockedValue { $0.serverGoAway?.errorCode } }

    /// The server's `GOAWAY`, when it says that `stream` is above the last stream processed: the
    /// server did not process `stream`'s request and never will; `nil` otherwise.
    func serverGoAway(above stream: HTTP2StreamID) -> ServerGoAway? {
        state.withLockedValue { state in
            guard let goAway = state.serverGoAway, stream > goAway.lastProcessed else { return nil }
            return goAway
        }
    }
}
