/// A TLS protocol version as ATS names it (`NSExceptionMinimumTLSVersion`).
public enum TLSProtocolVersion: String, Sendable, Hashable, Comparable, CaseIterable, Codable {
    /// TLS 1.0.
    case tls10 = "TLSv1.0"
    /// TLS 1.1.
    case tls11 = "TLSv1.1"
    /// TLS 1.2, ATS's default minimum.
    case tls12 = "TLSv1.2"
    /// TLS 1.3.
    case tls13 = "TLSv1.3"

    private var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    /// Orders versions from oldest to newest.
    public static func < (lhs: TLSProtocolVersion, rhs: TLSProtocolVersion) -> Bool { lhs.order < rhs.order }

    /// `TLS 1.2`.
    public var displayName: String { "TLS " + rawValue.dropFirst(4) }
}
