import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSOCKS
import NIOSSL
import NIOTLS
import TransportSecurity
import TransportSecurityNIO

extension Connector {
    /// An HTTP/2 connection's multiplexer, and the record its `GOAWAY` watcher keeps.
    struct HTTP2Pipeline: Sendable {
        /// Opens request streams from any thread without waiting.
        let multiplexer: NIOHTTP2Handler.StreamMultiplexer
        /// The async view of the same multiplexer, kept for the connection's life (its inbound
        /// side would take the server's streams, which push being refused never come).
        let asyncMultiplexer: NIOHTTP2Handler.AsyncStreamMultiplexer<Void>
        /// What either side said about the connection's end.
        let goAway: GoAwayRecord
        /// The `PING`s that check the server is still there.
        let probe: HTTP2LivenessProbe
        /// What the client's HTTP/2 handler found wrong in the server's frames.
        let violations: HTTP2ViolationRecord
    }

    /// The largest response head taken, in bytes: 80 KiB, swift-nio's HTTP/1.1 parser's limit, so
    /// that HTTP/2 takes what HTTP/1.1 takes. Over HTTP/2 it is the decoded header list
    /// (SETTINGS_MAX_HEADER_LIST_SIZE; swift-nio-http2's default of 16 KiB refused, as a
    /// connection error, a head of 17.5 KB that nginx sent, curl read, and HTTP/1.1 took).
    static let responseHeadLimit = 80 * 1024

    /// How many bytes of one HTTP/2 response the server may send ahead of what the client has
    /// read: 8 MiB. A stream can carry at most one window per round trip, and HTTP/2's default of
    /// 64 KiB held a download 40 ms away to 1.6 MB/s (a 10 MB body took 11.5 s over HTTP/2 and
    /// 0.21 s over HTTP/1.1, whose TCP window grows by itself; BENCHMARKS.md). It is also the most data a stream
    /// whose reader stopped holds in memory (AsyncHTTPClient's figure; curl's is 10 MiB).
    static let http2StreamWindow = 8 << 20

    /// How many bytes of all of a connection's responses the server may send ahead of what has
    /// arrived: twice a stream's window, so that two downloads at once each get theirs. It is
    /// given back as data arrives, not as it is read, so a stopped stream never holds up the
    /// others.
    static let http2ConnectionWindow = 16 << 20

    /// HTTP/2 over `channel`: the frame handler (server push refused, so no stream is ever
    /// opened by the server) and a watcher of the connection's own frames: GOAWAYs of either side,
    /// PING acknowledgements, the handler's findings.
    ///
    /// The handler remembers the last 1,000 streams the client reset, not swift-nio-http2's 32:
    /// frames the server sent on a stream before its `RST_STREAM` arrived must be ignored (RFC
    /// 9113 §6.4), and swift-nio-http2 takes a frame on a reset stream it no longer remembers for
    /// a connection error. With 32, cancelling 34 requests at once, while their answers were on
    /// their way, ended the connection.
    ///
    /// The client's flow-control windows are ``http2StreamWindow`` per stream and
    /// ``http2ConnectionWindow`` for the connection, both open from the start (the stream window
    /// in the client's SETTINGS, the connection's by a WINDOW_UPDATE right after them), so that
    /// not even the first round trip is held to HTTP/2's 64 KiB.
    static func http2Pipeline(on channel: any Channel) -> EventLoopFuture<HTTP2Pipeline> {
        var settings = NIOHTTP2Handler.Configuration()
        settings.connection.initialSettings = [
            // swift-nio-http2's default, for streams the server would open (none: push is off).
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
            HTTP2Setting(parameter: .maxHeaderListSize, value: responseHeadLimit),
            HTTP2Setting(parameter: .enablePush, value: 0),
            HTTP2Setting(parameter: .initialWindowSize, value: http2StreamWindow),
        ]
        settings.connection.targetWindowSize = http2ConnectionWindow
        settings.stream.targetWindowSize = http2StreamWindow
        settings.connection.maximumRecentlyResetStreams = 1_000
        // swift-nio-http2 takes more than 200 RST_STREAMs in 30 s for HTTP/2 Rapid Reset, an attack
        // of clients on servers, and ends the connection. A server resets streams this client
        // opened, and some reset every upload they answer early (HAProxy, with CANCEL): the 201st
        // POST in 30 s failed. A window of no time counts none (a flood of frames on streams that
        // do not exist still counts as stream errors, and costs no more than WINDOW_UPDATEs,
        // which nobody counts).
        settings.stream.streamResetFrameRateLimit.windowLength = .zero
        return channel.eventLoop.makeCompletedFuture {
            let goAway = GoAwayRecord()
            let probe = HTTP2LivenessProbe()
            let violations = HTTP2ViolationRecord()
            let watcher = HTTP2ConnectionWatcher(record: goAway, probe: probe, violations: violations, channel: channel)
            let asyncMultiplexer = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(
                mode: .client,
                streamDelegate: nil,
                frameDelegate: watcher,
                configuration: settings
            ) { stream in
                stream.close()
            }
            try channel.pipeline.syncOperations.addHandler(watcher)
            // The connection's window starts at 64 KiB whatever the settings say (RFC 9113
            // §6.9.2) and swift-nio-http2 widens it only once data arrives: widened now, the
            // first round trip carries a whole stream window too.
            let widening = HTTP2Frame.FramePayload.windowUpdate(windowSizeIncrement: http2ConnectionWindow - 65_535)
            channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: widening), promise: nil)
            let multiplexer = try channel.pipeline.syncOperations.handler(type: NIOHTTP2Handler.self).syncMultiplexer()
            return HTTP2Pipeline(multiplexer: multiplexer, asyncMultiplexer: asyncMultiplexer, goAway: goAway, probe: probe, violations: violations)
        }
    }
}
