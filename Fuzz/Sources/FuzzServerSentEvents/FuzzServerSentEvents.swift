import FuzzDriver
import SecureSession

/// A `text/event-stream`, its first byte choosing where to cut the rest into parts: the events
/// are the same however the stream is cut (in one part, byte by byte, or at the chosen points),
/// every event has data or an empty line's worth, and none has an id with a NUL or a negative
/// retry.
func fuzzServerSentEvents(_ input: UnsafeRawBufferPointer) {
    guard let first = input.first else { return }
    let stream = Array(input.dropFirst())
    var whole = ServerSentEventParser()
    // Inputs are at most 64 KiB, under the parser's 1 MiB bound: nothing throws.
    let expected = try! whole.parse(stream)
    var single = ServerSentEventParser()
    var byByte: [ServerSentEvent] = []
    for byte in stream { byByte += try! single.parse([byte]) }
    precondition(byByte == expected, "events that depend on parts of one byte")
    var chosen = ServerSentEventParser()
    var cut: [ServerSentEvent] = []
    var start = 0
    var step = Int(first % 13) + 1
    while start < stream.count {
        let end = min(stream.count, start + step)
        cut += try! chosen.parse(stream[start..<end])
        start = end
        step = step % 7 + 1
    }
    precondition(cut == expected, "events that depend on where the stream is cut")
    for event in expected {
        precondition(!event.event.isEmpty, "an event without a type")
        precondition(event.id.map { !$0.utf8.contains(0) } ?? true, "an id with a NUL")
        precondition((event.retry ?? 0) >= 0, "a negative retry")
    }
}

@main
enum FuzzServerSentEventsMain {
    static func main() { runFuzzer(fuzzServerSentEvents) }
}
