import Foundation

/// The body of a response read as it arrives (``SecureSession/bytes(for:)``, URLSession's
/// `bytes(for:)`): an `AsyncSequence` of the parts as they come, or of its ``lines``. The request
/// reads the next part from the server only once the last one was taken, so a reader that stops
/// holds the server back; a reader whose task is cancelled, or that drops the body unread,
/// ends the request (its connection closed). Read once: a second iteration gets what the first
/// left.
public struct ResponseBody: AsyncSequence, Sendable {
    /// A part of the body as it arrived.
    public typealias Element = Data

    /// Ends the request when the last copy of the body and of its iterators goes away first.
    final class Lifetime: Sendable {
        let pipe: ResponseBodyPipe
        init(_ pipe: ResponseBodyPipe) { self.pipe = pipe }
        deinit { pipe.abandon() }
    }

    let lifetime: Lifetime

    /// Goes through the parts.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let lifetime: Lifetime

        /// The next part; `nil` once the body is over.
        /// - Throws: the request's ``SecureSessionError`` when it failed while the body was read
        ///   (a connection that broke, a timeout), ``SecureSessionError/cancelled`` when the
        ///   reading task was cancelled.
        public mutating func next() async throws -> Data? {
            try await lifetime.pipe.next()
        }
    }

    /// Starts going through the parts.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(lifetime: lifetime) }

    /// The whole response (status, headers, trust decision, timing, attempts; its
    /// ``SecureResponse/body`` empty) once the body has been read to its end.
    /// - Important: Read the body first: the request waits for the reader.
    public func response() async throws -> SecureResponse {
        try await lifetime.pipe.response()
    }

    /// The body's lines, as UTF-8 text without their line ends (`\n` or `\r\n`); a last line
    /// without an end counts too (JSON lines, server-sent events, logs). A line longer than
    /// ``ResponseLines/defaultMaximumLength`` (1 MiB) ends the reading (``lines(maximumLength:)``).
    public var lines: ResponseLines { ResponseLines(body: self, maximumLength: ResponseLines.defaultMaximumLength) }

    /// The body's lines, as ``lines``, none longer than `maximumLength` bytes: a server cannot
    /// make the reader hold a line without an end. A longer line ends the reading with
    /// ``SecureSessionError/invalidResponse(_:underlying:)`` saying so, and the request (its connection
    /// closed).
    public func lines(maximumLength: Int) -> ResponseLines { ResponseLines(body: self, maximumLength: maximumLength) }
}

/// The lines of a ``ResponseBody``.
public struct ResponseLines: AsyncSequence, Sendable {
    /// One line, without its line break.
    public typealias Element = String

    /// The longest line ``ResponseBody/lines`` holds: 1 MiB.
    public static let defaultMaximumLength = 1 << 20

    let body: ResponseBody
    /// The longest line held, in bytes, its line end aside.
    let maximumLength: Int

    /// Goes through the lines.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var parts: ResponseBody.AsyncIterator
        let maximumLength: Int
        var pending: [UInt8] = []
        var isOver = false

        /// The next line; `nil` once the body is over.
        /// - Throws: ``SecureSessionError/invalidResponse(_:underlying:)`` for a line longer than the
        ///   maximum; the body's own errors.
        public mutating func next() async throws -> String? {
            while true {
                if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    var line = pending[..<end]
                    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                    try check(line.count)
                    defer { pending.removeSubrange(...end) }
                    return String(decoding: line, as: UTF8.self)
                }
                // No line end yet: what is held is one line (a CR may yet be its end).
                try check(pending.count - (pending.last == UInt8(ascii: "\r") ? 1 : 0))
                if isOver {
                    guard !pending.isEmpty else { return nil }
                    defer { pending = [] }
                    return String(decoding: pending, as: UTF8.self)
                }
                if let part = try await parts.next() {
                    pending.append(contentsOf: part)
                } else {
                    isOver = true
                }
            }
        }

        /// Refuses a line of `length` bytes when it is longer than the maximum.
        private func check(_ length: Int) throws(SecureSessionError) {
            guard length > maximumLength else { return }
            throw SecureSessionError.invalidResponse("a line of the body is longer than \(maximumLength) bytes, the most held (lines(maximumLength:) sets it)")
        }
    }

    /// Starts going through the lines.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(parts: body.makeAsyncIterator(), maximumLength: maximumLength) }
}
