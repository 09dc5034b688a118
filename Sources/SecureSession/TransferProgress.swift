/// How far a download has come: the bytes written so far and, when the server announced it
/// (`Content-Length`), how many are expected.
public struct TransferProgress: Sendable, Hashable {
    /// The body bytes received so far.
    public let bytesReceived: Int64
    /// The body's announced length; `nil` when the server did not say (chunked, HTTP/2 without
    /// `content-length`).
    public let expectedBytes: Int64?

    /// Creates a progress report.
    public init(bytesReceived: Int64, expectedBytes: Int64?) {
        self.bytesReceived = bytesReceived
        self.expectedBytes = expectedBytes
    }

    /// The share received, 0 to 1, when the length is known (and not zero).
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(bytesReceived) / Double(expectedBytes))
    }
}
