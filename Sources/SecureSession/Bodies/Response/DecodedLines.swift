import Foundation
import TransportSecurity

/// The values of a JSON-lines body (`application/x-ndjson`, `application/jsonl`: one JSON
/// document per line), decoded as they arrive (``ResponseBody/decodedLines(_:maximumLineLength:decoder:)``).
/// Empty lines are passed over; a line that is not the JSON of the type fails the reading with
/// ``SecureSessionError/undecodableResponse(_:underlying:)`` naming the line and the place.
public struct DecodedLines<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    /// One decoded line.
    public typealias Element = Value

    let lines: ResponseLines
    let decoder: @Sendable () -> JSONDecoder

    /// Goes through the values.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var lines: ResponseLines.AsyncIterator
        let decoder: JSONDecoder
        var number = 0

        /// The next value; `nil` once the body is over.
        public mutating func next() async throws -> Value? {
            while let line = try await lines.next() {
                number += 1
                guard !line.allSatisfy(\.isWhitespace) else { continue }
                let json = Data(line.utf8)
                do {
                    return try decoder.decode(Value.self, from: json)
                } catch {
                    let reason = DecodingErrorText.describe(error, document: "line \(number)", json: json)
                    throw SecureSessionError.undecodableResponse("line \(number) of the body is not the JSON of \(Value.self): \(reason)")
                }
            }
            return nil
        }
    }

    /// Starts going through the values.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(lines: lines.makeAsyncIterator(), decoder: decoder()) }
}

extension ResponseBody {
    /// The body's JSON lines decoded as `type`, one value per line as it arrives.
    ///
    /// ```swift
    /// let (_, body) = try await session.bytes(for: SecureRequest(url: exportURL))
    /// for try await order in body.decodedLines(Order.self) { try await store(order) }
    /// ```
    /// - Parameters:
    ///   - type: The type of each line's value.
    ///   - maximumLineLength: The longest line held, in bytes (1 MiB by default): a longer one
    ///     ends the reading with ``SecureSessionError/invalidResponse(_:underlying:)``.
    ///   - decoder: Makes the decoder of the reading (a `JSONDecoder` is not `Sendable`).
    public func decodedLines<Value: Decodable & Sendable>(
        _ type: Value.Type,
        maximumLineLength: Int = ResponseLines.defaultMaximumLength,
        decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) -> DecodedLines<Value> {
        DecodedLines(lines: lines(maximumLength: maximumLineLength), decoder: decoder)
    }
}
