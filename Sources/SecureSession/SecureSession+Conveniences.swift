import Foundation

extension SecureSession {
    /// `GET url`.
    public func get(_ url: URL, queryItems: [URLQueryItem] = [], headers: [(name: String, value: String)] = []) async throws
        -> SecureResponse
    {
        try await send(SecureRequest(.get, url: url, queryItems: queryItems, headers: headers))
    }

    /// `HEAD url`.
    public func head(_ url: URL, headers: [(name: String, value: String)] = []) async throws -> SecureResponse {
        try await send(SecureRequest(.head, url: url, headers: headers))
    }

    /// `DELETE url`.
    public func delete(_ url: URL, headers: [(name: String, value: String)] = []) async throws -> SecureResponse {
        try await send(SecureRequest(.delete, url: url, headers: headers))
    }

    /// `POST url` with a body.
    public func post(_ url: URL, body: Data?, headers: [(name: String, value: String)] = []) async throws -> SecureResponse {
        try await send(SecureRequest(.post, url: url, headers: headers, body: body))
    }

    /// `PUT url` with a body.
    public func put(_ url: URL, body: Data?, headers: [(name: String, value: String)] = []) async throws -> SecureResponse {
        try await send(SecureRequest(.put, url: url, headers: headers, body: body))
    }

    /// `PATCH url` with a body.
    public func patch(_ url: URL, body: Data?, headers: [(name: String, value: String)] = []) async throws -> SecureResponse {
        try await send(SecureRequest(.patch, url: url, headers: headers, body: body))
    }

    /// Sends `value` as JSON with `method` and decodes the JSON answer as `Response`.
    public func json<Response: Decodable>(
        _ method: HTTPMethod,
        _ url: URL,
        body value: some Encodable,
        as type: Response.Type,
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder()
    ) async throws -> Response {
        var request = try SecureRequest.json(method, url: url, body: value, encoder: encoder)
        request.headers.append(("Accept", "application/json"))
        request.validation = .json
        return try await send(request).decode(type, decoder: decoder)
    }
}
