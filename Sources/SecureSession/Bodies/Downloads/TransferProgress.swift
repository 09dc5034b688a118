/// How far a download has come: the bytes of the body the file holds and, when the server
/// said (`Content-Length`, or the length of a `206`'s `Content-Range`), the whole body's length.
public struct TransferProgress: Sendable, Hashable {
    /// The body bytes the file holds: those received so far, after those of a partial file
    /// being continued.
    public let bytesReceived: Int64
    /// The whole body's announced length; `nil` when the server did not say (chunked, HTTP/2
    /// without `content-length`).
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
