/// A request the server did not process and never will, so that sending it again is safe
/// whatever its method (RFC 9113 §8.7): an HTTP/2 stream the server refused (`REFUSED_STREAM`),
/// one above the last stream its `GOAWAY` says it processed (sent again on a new connection), or
/// one that could not start because the connection was going away.
struct RequestNotProcessed: Error, CustomStringConvertible {
    /// Why, in words.
    let description: String
}
