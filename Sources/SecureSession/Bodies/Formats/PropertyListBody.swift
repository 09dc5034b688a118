import Foundation
import TransportSecurity

/// Property-list bodies, as AFNetworking's `AFPropertyListRequestSerializer` and
/// `AFPropertyListResponseSerializer` write and read them (`application/x-plist`).
///
/// A response's property list comes from the server, so it is checked before Foundation sees
/// it: a binary list with a set, a reference cycle, an offset outside the file, more than 512
/// levels or shared references standing for exponentially many values is refused
/// (`BinaryPropertyListGuard`, as for configurations: Foundation on Linux crashes on or never
/// finishes such lists), and so is an XML list that is not UTF-8 or is nested more than 512
/// levels deep (`XMLPropertyListGuard`: `PropertyListDecoder` traps on some bytes that are not
/// UTF-8, and its XML scanner recurses without bound: a list nested 20,000 deep, 300 KB,
/// overflows the stack). Only then does `PropertyListDecoder` read it; OpenStep lists it bounds
/// itself. `PropertyListSerialization` is not used: it leaks memory for every list it cannot
/// read.
public enum PropertyListBody {
    /// The media type of property lists.
    public static let contentType = "application/x-plist"
}

extension SecureRequest {
    /// A request whose body is `value` encoded as a property list (XML unless `format` says
    /// binary), with `Content-Type: application/x-plist`.
    /// - Throws: `EncodingError` when `value` cannot be a property list (a top-level `nil`, say).
    public static func propertyList(
        _ method: HTTPMethod,
        url: URL,
        body value: some Encodable,
        format: PropertyListSerialization.PropertyListFormat = .xml
    ) throws -> SecureRequest {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        return SecureRequest(method, url: url, headers: [("Content-Type", PropertyListBody.contentType)], body: try encoder.encode(value))
    }
}

extension ResponseValidation {
    /// Status 200–299 and a property-list body (`application/x-plist`).
    public static let propertyList = ResponseValidation(acceptableContentTypes: [PropertyListBody.contentType])
}

extension PropertyListBody {
    /// `data` decoded from a property list (XML, binary or OpenStep), read as the type says.
    /// - Throws: ``SecureSessionError/undecodableResponse(_:underlying:)`` naming the type and why: a list
    ///   Foundation could not read safely, a malformed or too deeply nested one, or the place that
    ///   does not fit the type (`user.name: expected a string`).
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, decoder: PropertyListDecoder = PropertyListDecoder()) throws -> Value {
        let reason: String
        do {
            try BinaryPropertyListGuard.check(data)
            try XMLPropertyListGuard.check(data)
            return try decoder.decode(type, from: data)
        } catch let refusal as BinaryPropertyListGuard.Refusal {
            reason = refusal.reason
        } catch let refusal as XMLPropertyListGuard.Refusal {
            reason = refusal.reason
        } catch {
            reason = DecodingErrorText.describe(error, document: "the body", format: "a property list")
        }
        throw SecureSessionError.undecodableResponse("the body is not the property list of \(Value.self): \(reason)")
    }
}

extension SecureResponse {
    /// The body decoded from a property list, as ``PropertyListBody/decode(_:from:decoder:)``
    /// reads it.
    /// - Throws: ``SecureSessionError/undecodableResponse(_:underlying:)`` saying why.
    public func decodePropertyList<Value: Decodable>(_ type: Value.Type, decoder: PropertyListDecoder = PropertyListDecoder()) throws -> Value {
        try PropertyListBody.decode(type, from: body, decoder: decoder)
    }
}

extension SecureSession {
    /// Sends `value` as a property list with `method` and decodes the property-list answer as
    /// `Response` (AFNetworking's property-list serializers, both ways).
    public func propertyList<Response: Decodable>(
        _ method: HTTPMethod,
        _ url: URL,
        body value: some Encodable,
        as type: Response.Type,
        format: PropertyListSerialization.PropertyListFormat = .xml
    ) async throws -> Response {
        var request = try SecureRequest.propertyList(method, url: url, body: value, format: format)
        request.headers.append(("Accept", PropertyListBody.contentType))
        request.validation = .propertyList
        return try await send(request).decodePropertyList(type)
    }
}
