import Foundation
import FuzzDriver
import SecureSession

#if canImport(Glibc)
import Glibc
#endif

/// What the server writes to every connection for the input under way.
private final class ServedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []

    func set(_ new: [UInt8]) { lock.withLock { bytes = new } }
    func get() -> [UInt8] { lock.withLock { bytes } }
}

private let served = ServedBytes()

/// A cleartext server on 127.0.0.1 (plain sockets, one connection at a time, on a thread of its
/// own): it reads a request's head, writes the input's bytes as they are and closes. Its port.
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
            serve(connection)
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}()

/// Reads up to the end of the request's head (at most 64 KiB, 2 s), writes the bytes, closes.
private func serve(_ connection: Int32) {
    defer { close(connection) }
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    // The head may end inside what was read, before a body.
    while received.count < 65_536, received.firstRange(of: Array("\r\n\r\n".utf8)) == nil {
        let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return }
        received += buffer[..<count]
    }
    let bytes = served.get()
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { send(connection, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL)) }
        guard count > 0 else { return }
        written += count
    }
}

/// One session for the whole run: redirects, challenges (answered with a user and password, so
/// that Basic and Digest answers are computed), decompression and a cookie jar are all in play.
/// Every host but a loopback one is reached through the same server as an HTTP proxy, so that a
/// redirect the fuzzer writes to any host stays on this machine (and the server's bytes answer
/// `CONNECT` too).
private let session: SecureSession = {
    var configuration = SecureSessionConfiguration(connectTimeout: .seconds(2), requestTimeout: .seconds(3), maximumRedirects: 3)
    let proxy = HTTPProxy(host: "127.0.0.1", port: port)
    configuration.proxies = HTTPProxySettings(https: proxy, http: proxy, bypassesLoopback: true)
    configuration.decompression = .enabled()
    configuration.cookieJar = CookieJar()
    configuration.maximumResponseBodySize = 1 << 20
    configuration.challengeHandler = { challenge in
        challenge.previousFailureCount == 0 ? .useCredential(.user("fuzz", password: "secret")) : .performDefaultHandling
    }
    return SecureSession(configuration: configuration)
}()

/// The outcome of one request, carried out of its task.
private final class Outcome: @unchecked Sendable {
    var response: SecureResponse?
    var error: (any Error)?
}

/// The input's first byte chooses the request (GET, HEAD, or POST with a body); the rest is
/// what the server answers, to the request and to any redirect or challenge answer that
/// follows it. Whatever the bytes, the request ends with a response or a `SecureSessionError`,
/// never a crash, another error or a hang; a response's body is within the session's limit.
func fuzzResponses(_ input: UnsafeRawBufferPointer) {
    let bytes = Array(input)
    let methods: [HTTPMethod] = [.get, .head, .post]
    let method = methods[Int(bytes.first ?? 0) % methods.count]
    served.set(Array(bytes.dropFirst()))
    let url = URL(string: "http://127.0.0.1:\(port)/fuzz")!
    let request = SecureRequest(method, url: url, body: method == .post ? Data("fuzz body".utf8) : nil)
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
}

@main
enum FuzzResponsesMain {
    static func main() { runFuzzer(fuzzResponses) }
}
