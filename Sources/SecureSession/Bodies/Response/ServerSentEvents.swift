import Foundation

/// One event of a `text/event-stream` body (HTML's server-sent events): what streaming APIs send
/// part by part, language models' answers among them.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: its `event` field, `message` without one.
    public var event: String
    /// Its `data` fields, joined by line ends.
    public var data: String
    /// The last `id` field seen so far in the stream (ids carry over to later events), `nil`
    /// before any.
    public var id: String?
    /// The reconnection time the stream asked for so far (its last `retry` field), in
    /// milliseconds; `nil` before any.
    public var retry: Int?

    /// Creates an event.
    public init(event: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// The events of a ``ResponseBody`` read as a `text/event-stream` (``ResponseBody/events``),
/// by ``ServerSentEventParser``'s rules; an event the body ends in the middle of is dropped.
public struct ServerSentEvents: AsyncSequence, Sendable {
    /// One dispatched event.
    public typealias Element = ServerSentEvent

    let body: ResponseBody
    let maximumEventSize: Int

    /// Goes through the events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var parts: ResponseBody.AsyncIterator
        var parser: ServerSentEventParser
        /// Events of the last part not handed out yet.
        var ready: [ServerSentEvent] = []

        /// The next event; `nil` once the body is over.
        public mutating func next() async throws -> ServerSentEvent? {
            while ready.isEmpty {
                guard let part = try await parts.next() else { return nil }
                ready = try parser.parse(part)
            }
            return ready.removeFirst()
        }
    }

    /// Starts going through the events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(parts: body.makeAsyncIterator(), parser: ServerSentEventParser(maximumEventSize: maximumEventSize))
    }
}

extension ResponseBody {
    /// The body's server-sent events (`text/event-stream`), as they arrive.
    ///
    /// ```swift
    /// var request = SecureRequest(url: streamURL)
    /// request.headers.append((name: "Accept", value: "text/event-stream"))
    /// let (_, body) = try await session.bytes(for: request)
    /// for try await event in body.events where event.event == "delta" { print(event.data) }
    /// ```
    ///
    /// An event larger than ``ServerSentEventParser/defaultMaximumEventSize`` (1 MiB) ends the
    /// reading (``events(maximumEventSize:)``).
    public var events: ServerSentEvents { ServerSentEvents(body: self, maximumEventSize: ServerSentEventParser.defaultMaximumEventSize) }

    /// The body's server-sent events, as ``events``, none larger than `maximumEventSize` bytes
    /// (its data and the line being read): a larger one ends the reading with
    /// ``SecureSessionError/invalidResponse(_:underlying:)`` saying so, and the request.
    public func events(maximumEventSize: Int) -> ServerSentEvents { ServerSentEvents(body: self, maximumEventSize: maximumEventSize) }
}
