import Foundation
import FuzzDriver
import SecureSession

#if canImport(Glibc)
import Glibc
#endif

/// What the server answers the requests of the input under way with (the first request, then
/// every later one), and whether it then waits for another request on the connection.
private final class ServedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var first: [UInt8] = []
    private var later: [UInt8] = []
    private var answered = false
    private var keepsOpen = false

    func set(first: [UInt8], later: [UInt8], keepsOpen: Bool) {
        lock.withLock { (self.first, self.later, self.keepsOpen, answered) = (first, later, keepsOpen, false) }
    }

    /// The answer to the next request.
    func next() -> (bytes: [UInt8], keepsOpen: Bool) {
        lock.withLock {
            defer { answered = true }
            return (answered ? later : first, keepsOpen)
        }
    }
}

/// Where an input's answer to its first request ends and the answer to every later one
/// begins (without it, the same bytes answer them all): a `304` can then follow a `200`.
private let laterAnswers = Array("\n#then#\n".utf8)

private let served = ServedBytes()

/// A cleartext server on 127.0.0.1 (plain sockets, a thread per connection): it reads a
/// request's head and writes the input's bytes as they are; then it closes, or waits for the
/// next request on the connection when the input says so. Its port.
private let port: Int = {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
            bind(listener, address, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, address, &length) == 0
        }
    }
    guard listener >= 0, bound else { preconditionFailure("the fuzz server cannot listen") }
    Thread.detachNewThread {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            Thread.detachNewThread { serve(connection) }
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}()

/// Answers the requests of one connection: reads up to the end of a request's head (at most
/// 64 KiB, waiting 2 s at most), writes the bytes, and closes or goes on.
private func serve(_ connection: Int32) {
    defer { close(connection) }
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let headEnd = Array("\r\n\r\n".utf8)
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        // The head may end inside what was read, before a body (which is left to be skipped
        // with the next head).
        while received.firstRange(of: headEnd) == nil {
            guard received.count < 65_536 else { return }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received += buffer[..<count]
        }
        received.removeSubrange(..<(received.firstRange(of: headEnd)!.upperBound))
        let answer = served.next()
        var written = 0
        while written < answer.bytes.count {
            let count = answer.bytes.withUnsafeBytes { send(connection, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            written += count
        }
        guard answer.keepsOpen else { return }
    }
}

/// One session for the whole run: redirects, challenges (answered with a user and password, so
/// that Basic and Digest answers are computed), decompression, a cookie jar and a response cache
/// are all in play.
/// Every host but a loopback one is reached through the same server as an HTTP proxy, so that a
/// redirect the fuzzer writes to any host stays on this machine (and the server's bytes answer
/// `CONNECT` too).
private let session: SecureSession = {
    let proxy = HTTPProxy(host: "127.0.0.1", port: port)
    var configuration = SecureSessionConfiguration(
        connections: .init(proxies: HTTPProxySettings(https: proxy, http: proxy, bypassesLoopback: true)),
        timeouts: .init(connect: .seconds(1), request: .seconds(1)),
        responses: .init(maximumRedirects: 3, maximumBodySize: 1 << 20, decompression: .enabled(), cache: cache),
        features: .init(cookieJar: CookieJar())
    )
    configuration.features.challengeHandler = { challenge in
        challenge.previousFailureCount == 0 ? .useCredential(.user("fuzz", password: "secret")) : .performDefaultHandling
    }
    return SecureSession(configuration: configuration)
}()

/// The session's response cache, emptied after every input: each input has URLs of its own, and
/// what a cache keeps in a global at exit, LeakSanitizer takes for leaks (it does not follow a
/// `Data`'s storage through the enum that holds it).
private let cache = ResponseCache(capacity: 4 << 20)

/// The outcome of one request, carried out of its task.
private final class Outcome: @unchecked Sendable {
    var response: SecureResponse?
    var error: (any Error)?
}

/// The input's first byte chooses the request (GET, HEAD, or POST with a body: its value modulo
/// 3) and whether the server keeps the connection open after answering (bit 2), so that the
/// session's pool may lease it again for the next input, whatever it was left holding; the rest
/// is what the server answers, to the request and to any redirect or challenge answer that
/// follows it (after `\n#then#\n`, what answers every request but the first). Whatever the bytes, the request ends with a response or a `SecureSessionError`,
/// never a crash, another error or a hang; a response's body is within the session's limit.
/// A GET is sent twice (to a URL of its own input): when the cache answers the second, or
/// confirms it with the server's `304`, its status and body are the first's, and its `Age` a
/// number of seconds.
func fuzzResponses(_ input: UnsafeRawBufferPointer) {
    let bytes = Array(input)
    let selector = bytes.first ?? 0
    let methods: [HTTPMethod] = [.get, .head, .post]
    let method = methods[Int(selector) % methods.count]
    let answer = Array(bytes.dropFirst())
    if let split = answer.firstRange(of: laterAnswers) {
        served.set(first: Array(answer[..<split.lowerBound]), later: Array(answer[split.upperBound...]), keepsOpen: selector & 0x04 != 0)
    } else {
        served.set(first: answer, later: answer, keepsOpen: selector & 0x04 != 0)
    }
    let url = URL(string: "http://127.0.0.1:\(port)/fuzz?input=\(inputs.next())")!
    let request = SecureRequest(method, url: url, body: method == .post ? Data("fuzz body".utf8) : nil)
    defer { cache.removeAll() }
    let first = send(request)
    guard method == .get, let kept = first.response else { return }
    let second = send(request)
    guard let again = second.response, again.source != .network else { return }
    precondition(again.statusCode == kept.statusCode && again.body == kept.body, "the cache answered other than the server had")
    if again.source == .cache {
        precondition(again.header("Age").flatMap { Int($0) }.map { $0 >= 0 } == true, "a cached answer without a number of seconds as its Age")
    }
}

/// Counts the inputs, so that each has a URL of its own.
private final class InputCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int { lock.withLock { count += 1; return count } }
}

private let inputs = InputCounter()

/// Sends `request`, checking what every request must end with.
private func send(_ request: SecureRequest) -> Outcome {
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            outcome.response = try await session.send(request)
        } catch {
            outcome.error = error
        }
        done.signal()
    }
    done.wait()
    if let error = outcome.error {
        precondition(error is SecureSessionError, "an error other than SecureSessionError: \(type(of: error)): \(error)")
    } else if let response = outcome.response {
        precondition((200..<300).contains(response.statusCode), "a status the validation refuses: \(response.statusCode)")
        precondition(response.body.count <= 1 << 20, "a body over the limit: \(response.body.count) bytes")
    } else {
        preconditionFailure("neither a response nor an error")
    }
    return outcome
}

@main
enum FuzzResponsesMain {
    static func main() { runFuzzer(fuzzResponses) }
}
