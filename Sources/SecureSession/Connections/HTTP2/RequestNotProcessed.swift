/// A request the server did not process and never will, so that sending it again is safe
/// whatever its method (RFC 9113 §8.7): an HTTP/2 stream the server refused (`REFUSED_STREAM`),
/// one above the last stream its `GOAWAY` says it processed (sent again on a new connection),
/// one that could not start because the connection was going away, or one whose connection ended
/// before the stream was sent (it was never given an ID).
///
/// A server that ends connections after so many requests (nginx's `keepalive_requests`, 1,000 by
/// default) turns away, with a graceful `GOAWAY`, the streams opened beyond its count: those
/// requests are not processed because the connection served others, and trying them again makes
/// progress; such tries do not count toward the session's limit (``afterOthersWereServed``).
struct RequestNotProcessed: Error, CustomStringConvertible {
    /// Why, in words.
    let description: String
    /// Whether the server ended the connection gracefully (`GOAWAY` with `NO_ERROR`) after
    /// processing a stream this connection opened: it served other requests and is not refusing
    /// work.
    var afterOthersWereServed = false
}
