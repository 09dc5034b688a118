/// Certificate input that could not be read, naming the input and why.
public struct CertificateLoadingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the input could not be read.
    public enum Reason: Sendable, Equatable {
        /// The file could not be opened or read.
        case unreadable(String)
        /// The input is empty.
        case empty
        /// A PEM block is not valid (bad base64, missing END line, …).
        case malformedPEM(String)
        /// The bytes are not a DER certificate this library can parse.
        case malformedCertificate(String)
        /// The input parsed but holds no certificate (a PEM file of keys only, say).
        case noCertificates
        /// A path that should be a directory is not one.
        case notADirectory
        /// A key or certificate request whose pin cannot be taken (encrypted, or not parsing).
        case unusableKey(String)
    }

    /// The file path or description of the input; `nil` for bytes given directly.
    public var source: String?
    /// The 0-based position of the failing certificate inside a PEM bundle, when known.
    public var index: Int?
    /// Why loading failed.
    public var reason: Reason

    /// Creates an error.
    public init(source: String?, index: Int? = nil, reason: Reason) {
        self.source = source
        self.index = index
        self.reason = reason
    }

    func naming(_ source: String, index: Int? = nil) -> CertificateLoadingError {
        CertificateLoadingError(source: self.source ?? source, index: self.index ?? index, reason: reason)
    }

    /// A sentence naming the input, the position in a bundle and the reason.
    public var description: String {
        var place = source ?? "certificate data"
        if let index { place += " (certificate #\(index + 1) of the bundle)" }
        let why: String
        switch reason {
        case .unreadable(let detail): why = "cannot be read: \(detail)"
        case .empty: why = "is empty"
        case .malformedPEM(let detail): why = "is not valid PEM: \(detail)"
        case .malformedCertificate(let detail): why = "is not a valid X.509 certificate: \(detail)"
        case .noCertificates: why = "contains no CERTIFICATE block"
        case .notADirectory: why = "is not a directory"
        case .unusableKey(let detail): why = "gives no pin: \(detail)"
        }
        return "\(place) \(why)"
    }
}
