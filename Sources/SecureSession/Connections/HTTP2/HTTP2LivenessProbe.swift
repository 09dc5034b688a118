import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2

/// Asks an HTTP/2 connection whether the server is still there, with a `PING`, after a request
/// gave up on its stream (its deadline, a cancellation).
///
/// A server whose network path went away without a word (a NAT entry dropped, a machine gone)
/// leaves the connection open and silent: each request on it would wait for its own deadline,
/// and the connection, never idle, would never close. A `PING` the server does not acknowledge
/// in time ends that: the connection is closed, the requests on it fail, and the next ones get
/// a new connection. One `PING` is outstanding at a time.
final class HTTP2LivenessProbe: Sendable {
    private struct State {
        var outstanding: UInt64?
        var next: UInt64 = 1
        var wentSilent = false
    }

    private let state = NIOLockedValueBox(State())

    /// Whether a `PING` went unacknowledged: why the connection was closed.
    var wentSilent: Bool { state.withLockedValue { $0.wentSilent } }

    /// Sends a `PING` on `channel`, unless one is outstanding, and calls `onSilence` on the event
    /// loop when no acknowledgement came within `limit`.
    func probe(_ channel: any Channel, within limit: TimeAmount, onSilence: @escaping @Sendable () -> Void) {
        let sent: UInt64? = state.withLockedValue { state in
            guard state.outstanding == nil, !state.wentSilent else { return nil }
            defer { state.next &+= 1 }
            state.outstanding = state.next
            return state.next
        }
        guard let sent else { return }
        channel.eventLoop.execute {
            channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: sent), ack: false)), promise: nil)
            channel.eventLoop.scheduleTask(in: limit) {
                let silent: Bool = self.state.withLockedValue { state in
                    guard state.outstanding == sent else { return false }
                    state.outstanding = nil
                    state.wentSilent = true
                    return true
                }
                if silent { onSilence() }
            }
        }
    }

    /// The server acknowledged a `PING`.
    func acknowledged(_ data: HTTP2PingData) {
        state.withLockedValue { state in
            if state.outstanding == data.integer { state.outstanding = nil }
        }
    }
}
