import Foundation

/// Carries a response from the request's task to a ``ResponseBody``'s reader, one part at a
/// time: the request's task waits until the reader has taken a part before it reads the next,
/// so a reader that stops holds the server back, and one that goes away ends the request.
final class ResponseBodyPipe: @unchecked Sendable {
    private let lock = NSLock()
    private var head: ResponseHead?
    private var headWaiter: CheckedContinuation<ResponseHead, any Error>?
    /// A part handed over and not yet taken, and the request's task waiting for that.
    private var part: Data?
    private var partTaken: CheckedContinuation<Void, any Error>?
    /// The reader waiting for a part.
    private var reader: CheckedContinuation<Data?, any Error>?
    private var outcome: Result<SecureResponse, any Error>?
    private var outcomeWaiters: [CheckedContinuation<SecureResponse, any Error>] = []
    private var isAbandoned = false
    /// The request's task, cancelled when the reader goes away first.
    private var request: Task<Void, Never>?

    /// Runs the request `perform` (which hands the head and the parts to this pipe) in a task
    /// of its own.
    func start(_ perform: @escaping @Sendable (ResponseBodyPipe) async throws -> SecureResponse) {
        let task = Task { [self] in
            do {
                finish(.success(try await perform(self)))
            } catch {
                finish(.failure(error))
            }
        }
        let abandoned = lock.withLock {
            request = task
            return isAbandoned
        }
        if abandoned { task.cancel() }
    }

    // MARK: The request's side

    /// The response's head has arrived.
    func deliver(_ head: ResponseHead) {
        let waiter = lock.withLock {
            self.head = head
            defer { headWaiter = nil }
            return headWaiter
        }
        waiter?.resume(returning: head)
    }

    /// Hands `data` to the reader; returns once it is taken (or at once when the reader was
    /// already waiting). Throws `CancellationError` when the reader went away.
    func push(_ data: Data) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let (waitingReader, refused) = lock.withLock { () -> (CheckedContinuation<Data?, any Error>?, Bool) in
                if isAbandoned { return (nil, true) }
                if let reader {
                    self.reader = nil
                    return (reader, false)
                }
                part = data
                partTaken = continuation
                return (nil, false)
            }
            if refused {
                continuation.resume(throwing: CancellationError())
            } else if let waitingReader {
                waitingReader.resume(returning: data)
                continuation.resume()
            }
        }
    }

    private func finish(_ result: Result<SecureResponse, any Error>) {
        let (headWaiter, reader, waiters) = lock.withLock {
            outcome = result
            defer { (self.headWaiter, self.reader, outcomeWaiters) = (nil, nil, []) }
            return (self.headWaiter, self.reader, outcomeWaiters)
        }
        switch result {
        case .success(let response):
            // A response without a body was announced when it ended; the head came before.
            headWaiter?.resume(returning: ResponseHead(response))
            reader?.resume(returning: nil)
            for waiter in waiters { waiter.resume(returning: response) }
        case .failure(let error):
            headWaiter?.resume(throwing: error)
            reader?.resume(throwing: error)
            for waiter in waiters { waiter.resume(throwing: error) }
        }
    }

    // MARK: The reader's side

    /// Waits for the response's head; the request's error when it failed first.
    func waitForHead() async throws -> ResponseHead {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ResponseHead, any Error>) in
                let ready: Result<ResponseHead, any Error>? = lock.withLock {
                    if let head { return .success(head) }
                    if case .failure(let error)? = outcome { return .failure(error) }
                    if case .success(let response)? = outcome { return .success(ResponseHead(response)) }
                    if isAbandoned { return .failure(SecureSessionError.cancelled) }
                    headWaiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            abandon()
        }
    }

    /// The next part; `nil` once the body is over; the request's error when it failed.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let ready: (Result<Data?, any Error>, CheckedContinuation<Void, any Error>?)? = lock.withLock {
                    if let part {
                        defer { (self.part, partTaken) = (nil, nil) }
                        return (.success(part), partTaken)
                    }
                    switch outcome {
                    case .success?: return (.success(nil), nil)
                    case .failure(let error)?: return (.failure(error), nil)
                    case nil:
                        if isAbandoned { return (.failure(SecureSessionError.cancelled), nil) }
                        reader = continuation
                        return nil
                    }
                }
                guard let (result, taken) = ready else { return }
                taken?.resume()
                continuation.resume(with: result)
            }
        } onCancel: {
            abandon()
        }
    }

    /// The whole response once the request is over.
    func response() async throws -> SecureResponse {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SecureResponse, any Error>) in
            let ready: Result<SecureResponse, any Error>? = lock.withLock {
                if let outcome { return outcome }
                outcomeWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The reader went away (its task was cancelled, or the body was dropped unread): the
    /// request ends, its connection closed, unless it was over already.
    func abandon() {
        var task: Task<Void, Never>?
        var taken: CheckedContinuation<Void, any Error>?
        var headWaiter: CheckedContinuation<ResponseHead, any Error>?
        var reader: CheckedContinuation<Data?, any Error>?
        lock.withLock {
            guard outcome == nil, !isAbandoned else { return }
            isAbandoned = true
            (task, taken, headWaiter, reader) = (request, partTaken, self.headWaiter, self.reader)
            (partTaken, part, self.headWaiter, self.reader) = (nil, nil, nil, nil)
        }
        task?.cancel()
        taken?.resume(throwing: CancellationError())
        headWaiter?.resume(throwing: SecureSessionError.cancelled)
        reader?.resume(throwing: SecureSessionError.cancelled)
    }
}
