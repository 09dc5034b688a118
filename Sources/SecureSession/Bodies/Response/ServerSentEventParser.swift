import TransportSecurity
/// Reads a `text/event-stream` fed to it in parts, as they come (the HTML standard's rules,
/// as ``ServerSentEvents`` applies them; usable on its own with ``SecureSession/stream(_:into:)``):
/// lines end in CR LF, LF or CR, even when a part ends between the CR and the LF; a leading
/// byte-order mark is skipped; `:` starts a comment; a field's value loses one leading space;
/// an empty line sends the event when it has data; `id` and `retry` carry over to later
/// events, `retry` only as digits, an `id` with a NUL ignored. How the stream is cut into parts
/// never changes the events. An event (its data and the line being read) larger than
/// ``maximumEventSize`` is refused: a server cannot make the reader hold an event without end.
public struct ServerSentEventParser: Sendable {
    /// The largest event held by default: 1 MiB.
    public static let defaultMaximumEventSize = 1 << 20

    /// The most bytes an event's data and the line being read may hold together.
    public let maximumEventSize: Int
    /// Bytes of a line not ended yet.
    private var pending: [UInt8] = []
    private var isFirstLine = true
    /// A CR ended the last line: an LF right after it belongs to that end.
    private var endedByCR = false
    private var eventType = ""
    private var data = ""
    private var lastEventID: String?
    private var retry: Int?

    /// A parser at the start of a stream.
    /// - Parameter maximumEventSize: The most bytes an event's data and the line being read may
    ///   hold together (1 MiB by default).
    public init(maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize) {
        self.maximumEventSize = maximumEventSize
    }

    /// Takes the next part of the stream; the events it completes, in order. An event the
    /// stream ends in the middle of is never returned.
    /// - Throws: ``SecureSessionError/invalidResponse(_:underlying:)`` when an event grows larger than
    ///   ``maximumEventSize``.
    public mutating func parse(_ part: some Sequence<UInt8>) throws(SecureSessionError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in part {
            if endedByCR {
                endedByCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                pending.append(byte)
                if pending.count + data.utf8.count > maximumEventSize { throw tooLarge }
                continue
            }
            endedByCR = byte == UInt8(ascii: "\r")
            var line = pending
            pending.removeAll(keepingCapacity: true)
            if isFirstLine {
                isFirstLine = false
                if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
            }
            if let event = take(line) { events.append(event) }
            if data.utf8.count > maximumEventSize { throw tooLarge }
        }
        return events
    }

    /// The error of an event past the maximum size.
    private var tooLarge: SecureSessionError {
        .invalidResponse("a server-sent event is larger than \(maximumEventSize) bytes, the most held (ServerSentEventParser(maximumEventSize:), events(maximumEventSize:))")
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
        case "retry":
            if let milliseconds = DecimalNumber.saturating(value) { retry = Int(clamping: milliseconds) }
        default: break
        }
        return nil
    }

    /// The event the fields so far make, when they have data; the event's buffers start afresh.
    private mutating func dispatch() -> ServerSentEvent? {
        defer { (eventType, data) = ("", "") }
        guard !data.isEmpty else { return nil }
        return ServerSentEvent(event: eventType.isEmpty ? "message" : eventType, data: String(data.dropLast()), id: lastEventID, retry: retry)
    }
}
