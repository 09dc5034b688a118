/// Which responses count as successes, as AFNetworking's response serializers decide: acceptable
/// status codes and, optionally, acceptable media types.
public struct ResponseValidation: Sendable, Hashable {
    /// The acceptable status codes; `nil` accepts every status.
    public var acceptableStatusCodes: Set<Int>?
    /// The acceptable media types (`application/json`, `text/*`); `nil` accepts every type.
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
        if let codes = acceptableStatusCodes, !codes.contains(response.statusCode) {
            return .unacceptableStatus(code: response.statusCode, body: response.body)
        }
        if let types = acceptableContentTypes {
            let type = response.mediaType ?? ""
            let accepted = types.contains { accepted in
                accepted.hasSuffix("/*") ? type.hasPrefix(accepted.dropLast()) : accepted.lowercased() == type
            }
            if !accepted { return .unacceptableContentType(type.isEmpty ? nil : type, acceptable: types) }
        }
        return nil
    }
}
