/// An HTTP request method.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The method token, upper case.
    public let rawValue: String

    /// A method from its token.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    /// A method from a string literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// `GET`.
    public static let get: HTTPMethod = "GET"
    /// `POST`.
    public static let post: HTTPMethod = "POST"
    /// `PUT`.
    public static let put: HTTPMethod = "PUT"
    /// `PATCH`.
    public static let patch: HTTPMethod = "PATCH"
    /// `DELETE`.
    public static let delete: HTTPMethod = "DELETE"
    /// `HEAD`.
    public static let head: HTTPMethod = "HEAD"
    /// `OPTIONS`.
    public static let options: HTTPMethod = "OPTIONS"

    /// The token.
    public var description: String { rawValue }

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2):
    /// such a request may be retried on a new connection.
    public var isIdempotent: Bool {
        [HTTPMethod.get, .head, .put, .delete, .options].contains(self) || rawValue == "TRACE"
    }
}
