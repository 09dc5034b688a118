import Foundation

/// Which responses count as successes, as AFNetworking's response serializers decide: acceptable
/// status codes and, optionally, acceptable media types.
public struct ResponseValidation: Sendable, Hashable {
    /// The acceptable status codes; `nil` accepts every status.
    public var acceptableStatusCodes: Set<Int>?
    /// The acceptable media types (`application/json`, `text/*`, `*/*`), compared without case;
    /// `nil` accepts every type.
    public var acceptableContentTypes: Set<String>?

    /// Creates a validation.
    public init(acceptableStatusCodes: Set<Int>? = Set(200..<300), acceptableContentTypes: Set<String>? = nil) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// Status 200–299, any type: the default.
    public static let successfulStatus = ResponseValidation()

    /// Everything is acceptable (a tool that shows any response).
    public static let none = ResponseValidation(acceptableStatusCodes: nil, acceptableContentTypes: nil)

    /// Status 200–299 and a JSON body.
    public static let json = ResponseValidation(acceptableContentTypes: ["application/json"])

    /// Why `response` is not acceptable, or `nil` when it is.
    func violation(in response: SecureResponse) -> SecureSessionError? {
        violation(statusCode: response.statusCode, mediaType: response.mediaType, body: response.body)
    }

    /// Why a response with this status and media type is not acceptable, or `nil`; `body` goes
    /// into an ``SecureSessionError/unacceptableStatus(code:body:)``.
    func violation(statusCode: Int, mediaType: String?, body: Data) -> SecureSessionError? {
        if let codes = acceptableStatusCodes, !codes.contains(statusCode) {
            return .unacceptableStatus(code: statusCode, body: body)
        }
        if let types = acceptableContentTypes, !types.contains(where: { Self.mediaType(mediaType, isAcceptedBy: $0) }) {
            return .unacceptableContentType(mediaType, acceptable: types)
        }
        return nil
    }

    /// Whether a response's media type (lowercased, without parameters) is covered by an
    /// acceptable one, compared without case: `*/*` covers every response, with a type or
    /// without; `text/*` every `text/…` type; anything else only itself.
    static func mediaType(_ type: String?, isAcceptedBy acceptable: String) -> Bool {
        let acceptable = acceptable.lowercased()
        if acceptable == "*/*" { return true }
        guard let type else { return false }
        return acceptable.hasSuffix("/*") ? type.hasPrefix(acceptable.dropLast()) : acceptable == type
    }
}
