import Logging

extension SecureSessionConfiguration {
    /// The interceptor of `request`: its own, else the session's; `nil` when it is sent once.
    func interceptor(for request: SecureRequest) -> (any RequestInterceptor)? {
        request.interceptor ?? features.interceptor
    }

    /// The logger of `request`: its own, else the session's.
    func logger(for request: SecureRequest) -> Logger {
        request.logger ?? logger
    }

    /// The most of a response to `request` that may be held in memory.
    func memoryLimit(of request: SecureRequest) -> Int {
        request.maximumResponseBodySize ?? responses.maximumBodySize
    }
}
