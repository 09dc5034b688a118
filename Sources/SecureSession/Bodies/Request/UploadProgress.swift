/// How far a request's body has gone: the bytes the connection has taken so far, of how many
/// (AFNetworking's upload progress). Reported after every part (64 KiB), from the start again
/// when the body is sent again (a retry, a 307/308 redirect, an answered challenge).
public struct UploadProgress: Sendable, Hashable {
    /// The body bytes the connection has taken.
    public let bytesSent: Int64
    /// The body's length; `nil` for a ``RequestBodyStream`` of unknown length.
    public let totalBytes: Int64?

    /// Creates a progress report.
    public init(bytesSent: Int64, totalBytes: Int64?) {
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
    }

    /// The share sent, 0 to 1 (1 for an empty body); `nil` when the length is not known.
    public var fractionCompleted: Double? {
        guard let totalBytes else { return nil }
        return totalBytes > 0 ? min(1, Double(bytesSent) / Double(totalBytes)) : 1
    }
}
