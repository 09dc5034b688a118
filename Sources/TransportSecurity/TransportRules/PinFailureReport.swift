import Foundation

/// A pin failure as TrustKit reports it: the host and port, the pin set's domain and
/// settings, the validated chain as PEM, the pins expected, the time and the validation result.
/// Encoded with TrustKit's field names, so existing report collectors accept it.
public struct PinFailureReport: Sendable, Hashable, Encodable {
    /// TrustKit's validation results.
    public enum ValidationResult: Int, Sendable, Hashable, Encodable {
        /// The chain was trusted but carries no pinned key.
        case pinValidationFailed = 1
        /// The chain itself was not trusted.
        case chainNotTrusted = 2
    }

    /// The application sending the report (`app-bundle-id`).
    public let appIdentifier: String
    /// Its version (`app-version`).
    public let appVersion: String
    /// The host connected to (`hostname`).
    public let hostname: String
    /// The port (`port`).
    public let port: Int
    /// The pin set's domain (`noted-hostname`).
    public let notedHostname: String
    /// `include-subdomains`.
    public let includesSubdomains: Bool
    /// `enforce-pinning`.
    public let enforcesPinning: Bool
    /// The validated chain, leaf first, as PEM (`validated-certificate-chain`).
    public let validatedChain: [String]
    /// When (`date-time`, ISO 8601).
    public let date: Date
    /// The pins expected, as `pin-sha256="…"` (`known-pins`).
    public let knownPins: [String]
    /// `validation-result`.
    public let validationResult: ValidationResult

    /// Creates a report for a pin set's failure on `chain`.
    public init(
        set: DomainPinSet,
        hostname: String,
        port: Int,
        chain: [DERCertificate],
        date: Date,
        result: ValidationResult = .pinValidationFailed,
        appIdentifier: String = ProcessInfo.processInfo.processName,
        appVersion: String = "unknown"
    ) {
        self.appIdentifier = appIdentifier
        self.appVersion = appVersion
        self.hostname = hostname
        self.port = port
        notedHostname = set.key.description
        includesSubdomains = set.includesSubdomains
        enforcesPinning = set.enforces
        validatedChain = chain.map(\.pemString)
        self.date = date
        knownPins = set.pins.map { "pin-sha256=\"\($0.description.dropFirst(7))\"" }
        validationResult = result
    }

    /// What makes two reports the same for rate limiting: host, port, chain, pins and result.
    public var identity: [String] {
        [hostname, String(port), String(validationResult.rawValue)] + validatedChain + knownPins
    }

    enum CodingKeys: String, CodingKey {
        case appIdentifier = "app-bundle-id"
        case appVersion = "app-version"
        case appPlatform = "app-platform"
        case libraryVersion = "trustkit-version"
        case hostname
        case port
        case notedHostname = "noted-hostname"
        case includesSubdomains = "include-subdomains"
        case enforcesPinning = "enforce-pinning"
        case validatedChain = "validated-certificate-chain"
        case date = "date-time"
        case knownPins = "known-pins"
        case validationResult = "validation-result"
    }

    /// TrustKit's JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(appIdentifier, forKey: .appIdentifier)
        try container.encode(appVersion, forKey: .appVersion)
        #if os(Linux)
        try container.encode("Linux", forKey: .appPlatform)
        #else
        try container.encode("Apple", forKey: .appPlatform)
        #endif
        try container.encode("TransportSecurity 1", forKey: .libraryVersion)
        try container.encode(hostname, forKey: .hostname)
        try container.encode(port, forKey: .port)
        try container.encode(notedHostname, forKey: .notedHostname)
        try container.encode(includesSubdomains, forKey: .includesSubdomains)
        try container.encode(enforcesPinning, forKey: .enforcesPinning)
        try container.encode(validatedChain, forKey: .validatedChain)
        try container.encode(date.formatted(.iso8601), forKey: .date)
        try container.encode(knownPins, forKey: .knownPins)
        try container.encode(validationResult, forKey: .validationResult)
    }
}
