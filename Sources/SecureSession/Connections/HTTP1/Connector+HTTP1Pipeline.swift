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
    /// An HTTP/1.1 connection's channel, and the watcher of requests that wait for `100 Continue`.
    struct HTTP1Pipeline: Sendable {
        let channel: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        /// `nil` when bodies never wait (``SecureSessionConfiguration/Connections/expectContinue`` unset).
        let watcher: ContinueWatcher?
    }

    /// HTTP/1.1 over `channel`, seen from async code.
    static func http1Pipeline(on channel: any Channel, decompression: ResponseDecompression, waitsToContinue: Bool) throws -> HTTP1Pipeline {
        // swift-nio's client handlers; when bodies may wait for `100 Continue`, with
        // informational answers forwarded to the watcher (which keeps them from the rest).
        let watcher = waitsToContinue ? ContinueWatcher() : nil
        if let watcher {
            try channel.pipeline.syncOperations.addHandlers([
                HTTPRequestEncoder(),
                ByteToMessageHandler(HTTPResponseDecoder(informationalResponseStrategy: .forward)),
                NIOHTTPRequestHeadersValidator(),
                watcher,
            ])
        } else {
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
        }
        try decompression.install(in: channel.pipeline.syncOperations)
        try channel.pipeline.syncOperations.addHandler(UnsolicitedResponseGuard())
        return HTTP1Pipeline(channel: try NIOAsyncChannel(wrappingChannelSynchronously: channel), watcher: watcher)
    }
}
