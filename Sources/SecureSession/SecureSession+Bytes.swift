extension SecureSession {
    /// Sends `request` and returns once the response's head has arrived, with its body to read
    /// as it comes (URLSession's `bytes(for:)`):
    ///
    /// ```swift
    /// let (head, body) = try await session.bytes(for: SecureRequest(url: eventsURL))
    /// for try await line in body.lines { handle(line) }
    /// ```
    ///
    /// The status and content type are validated from the head, as ``stream(_:head:into:)``
    /// does: an unacceptable response throws here, with its body (bounded as in memory). The
    /// body is never held whole and not bounded by ``SecureSessionConfiguration/Responses/maximumBodySize``;
    /// the request's timeout covers the reading. Cancelling the task that waits here or reads
    /// the body, or dropping the body unread, ends the request.
    public func bytes(for request: SecureRequest) async throws -> (ResponseHead, ResponseBody) {
        let pipe = ResponseBodyPipe()
        let body = ResponseBody(lifetime: ResponseBody.Lifetime(pipe))
        pipe.start { pipe in
            try await self.stream(request) { head in
                pipe.deliver(head)
            } into: { part in
                try await pipe.push(part)
            }
        }
        return (try await pipe.waitForHead(), body)
    }
}
