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

/// The events of a ``ResponseBody`` read as a `text/event-stream` (``ResponseBody/events``), by
/// the HTML standard's parsing rules: lines end in CR LF, LF or CR; a leading byte-order mark is
/// skipped; `:` starts a comment; a field's value loses one leading space; an empty line sends
/// the event when it has data; `id` and `retry` carry over to later events, `retry` only as
/// digits, an `id` with a NUL ignored; an event the body ends in the middle of is dropped.
public struct ServerSentEvents: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent

    let body: ResponseBody

    /// Goes through the events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var parts: ResponseBody.AsyncIterator
        /// Bytes of a line not ended yet.
        var pending: [UInt8] = []
        var isOver = false
        var isFirstLine = true
        /// A CR ended the last line: an LF right after it belongs to that end.
        var endedByCR = false
        var eventType = ""
        var data = ""
        var lastEventID: String?
        var retry: Int?

        /// The next event; `nil` once the body is over.
        public mutating func next() async throws -> ServerSentEvent? {
            while let line = try await nextLine() {
                if let event = take(line) { return event }
            }
            return nil
        }

        /// The next line without its end; `nil` once the body is over (a last line without an
        /// end is not a line: its event cannot be complete).
        private mutating func nextLine() async throws -> [UInt8]? {
            while true {
                if endedByCR, let first = pending.first {
                    endedByCR = false
                    if first == UInt8(ascii: "\n") { pending.removeFirst() }
                }
                if let end = pending.firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
                    var line = Array(pending[..<end])
                    endedByCR = pending[end] == UInt8(ascii: "\r")
                    pending.removeSubrange(...end)
                    if isFirstLine {
                        isFirstLine = false
                        if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
                    }
                    return line
                }
                guard !isOver else { return nil }
                if let part = try await parts.next() {
                    pending.append(contentsOf: part)
                } else {
                    isOver = true
                }
            }
        }

        /// Takes one line in; the event it completes, if any.
        private mutating func take(_ line: [UInt8]) -> ServerSentEvent? {
            guard !line.isEmpty else { return dispatch() }
            guard line.first != UInt8(ascii: ":") else { return nil }
            let field: String
            var value: ArraySlice<UInt8> = []
            if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                field = String(decoding: line[..<colon], as: UTF8.self)
                value = line[(colon + 1)...]
                if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
            } else {
                field = String(decoding: line, as: UTF8.self)
            }
            let text = String(decoding: value, as: UTF8.self)
            switch field {
            case "event": eventType = text
            case "data": data += text + "\n"
            case "id" where !value.contains(0): lastEventID = text
            case "retry" where !value.isEmpty && value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }):
                retry = Int(text) ?? Int.max
            default: break
            }
            return nil
        }

        /// The event the fields so far make, when they have data; the buffers start afresh.
        private mutating func dispatch() -> ServerSentEvent? {
            defer { (eventType, data) = ("", "") }
            guard !data.isEmpty else { return nil }
            return ServerSentEvent(event: eventType.isEmpty ? "message" : eventType, data: String(data.dropLast()), id: lastEventID, retry: retry)
        }
    }

    /// Starts going through the events.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(parts: body.makeAsyncIterator()) }
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
    public var events: ServerSentEvents { ServerSentEvents(body: self) }
}
