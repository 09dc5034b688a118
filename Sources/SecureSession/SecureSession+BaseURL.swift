import Foundation

extension SecureSession {
    /// The URL of `path` under the configuration's ``SecureSessionConfiguration/baseURL``, as
    /// AFNetworking's `baseURL` resolves it (`users/1` under `https://api.example.com/v1` is
    /// `https://api.example.com/v1/users/1`; the base's path is taken as a folder), but confined to
    /// the base: a path that would reach another place is refused, where AFNetworking's
    /// `URLWithString:relativeToURL:` follows it.
    ///
    /// Refused, with ``SecureSessionError/invalidURL(_:)`` naming the path and where it leads:
    /// - an absolute URL (`https://elsewhere.example/`), or text read as one (`users:1`; write
    ///   `./users:1`);
    /// - a network-path reference (`//elsewhere.example/x`), which keeps only the scheme;
    /// - a path that resolves outside the base's path (`/admin`, `../admin` under `/v1/`);
    /// - a dot segment hidden by percent-encoding or a backslash (`%2e%2e/admin`, `..%2Fadmin`,
    ///   `..%5Cadmin`), which resolution leaves alone and many servers decode into `../`.
    ///
    /// A path inside the base with literal dot segments (`a/../b`) resolves as usual. A query
    /// (`users?active=1`) is kept.
    /// - Parameter path: A relative reference: a path, optionally with a query.
    /// - Throws: ``SecureSessionError/invalidURL(_:)`` when the session has no base URL or the path
    ///   leaves it.
    public func url(for path: String) throws -> URL {
        guard let configured = configuration.baseURL else {
            throw SecureSessionError.invalidURL("'\(path)': the session has no base URL (SecureSessionConfiguration.baseURL) to resolve it against")
        }
        let base = Self.folder(configured)
        func refuse(_ reason: String) -> SecureSessionError {
            .invalidURL("'\(path)' \(reason), outside the base URL \(base.redacted)")
        }
        if URL(string: path)?.scheme != nil { throw refuse("is an absolute URL (a first segment with ':' is written ./NAME:…)") }
        if path.hasPrefix("//") { throw refuse("names another host (a network-path reference)") }
        guard let resolved = path.isEmpty ? base : URL(string: path, relativeTo: base)?.absoluteURL,
            let components = URLComponents(url: resolved, resolvingAgainstBaseURL: false),
            let baseComponents = URLComponents(url: base, resolvingAgainstBaseURL: false)
        else {
            throw SecureSessionError.invalidURL("'\(path)' is not a path that resolves against the base URL \(base.redacted)")
        }
        guard components.scheme?.lowercased() == baseComponents.scheme?.lowercased(), components.host == baseComponents.host,
            components.port == baseComponents.port
        else { throw refuse("resolves to \(resolved.redacted)") }
        guard components.percentEncodedPath.hasPrefix(baseComponents.percentEncodedPath) else {
            throw refuse("resolves to \(resolved.redacted)")
        }
        // Resolution has removed the literal dot segments; what is left would become one only
        // once a server decodes it (`%2e%2e`, `..%2F`, `..%5C`, `..\`). Split by bytes, as
        // servers do: a slash followed by a combining mark is one Character.
        let hiddenDotSegment = components.percentEncodedPath.split(separator: "/").contains { segment in
            let decoded = segment.removingPercentEncoding ?? String(segment)
            return decoded.utf8.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }
                .contains { $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }
        }
        if hiddenDotSegment { throw refuse("holds a dot segment hidden by percent-encoding or a backslash (%2e, %2F, %5C), which servers may read as '.' or '..'") }
        return resolved
    }

    /// `base` with its path ending in `/`, so that paths resolve inside it (AFNetworking adds
    /// the slash likewise).
    private static func folder(_ base: URL) -> URL {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else { return base }
        if !components.percentEncodedPath.hasSuffix("/") { components.percentEncodedPath += "/" }
        components.query = nil
        components.fragment = nil
        return components.url ?? base
    }

    /// `GET path` under the base URL (``url(for:)``).
    public func get(_ path: String, queryItems: [URLQueryItem] = [], headers: [(name: String, value: String)] = []) async throws
        -> SecureResponse
    {
        try await get(url(for: path), queryItems: queryItems, headers: headers)
    }

    /// `HEAD path` under the base URL (``url(for:)``).
    public func head(_ path: String, headers: [(name: String, value: String)] = []) async throws -> SecureResponse {
        try await head(url(for: path), headers: headers)
    }

    /// `DELETE path` under the base URL (``url(for:)``).
    public func delete(_ path: String, headers: [(name: String, value: String)] = []) async throws -> SecureResponse {
        try await delete(url(for: path), headers: headers)
    }

    /// `POST path` under the base URL (``url(for:)``) with a body.
    public func post(_ path: String, body: Data?, headers: [(name: String, value: String)] = []) async throws -> SecureResponse {
        try await post(url(for: path), body: body, headers: headers)
    }

    /// `PUT path` under the base URL (``url(for:)``) with a body.
    public func put(_ path: String, body: Data?, headers: [(name: String, value: String)] = []) async throws -> SecureResponse {
        try await put(url(for: path), body: body, headers: headers)
    }

    /// `PATCH path` under the base URL (``url(for:)``) with a body.
    public func patch(_ path: String, body: Data?, headers: [(name: String, value: String)] = []) async throws -> SecureResponse {
        try await patch(url(for: path), body: body, headers: headers)
    }

    /// Sends `value` as JSON with `method` to `path` under the base URL (``url(for:)``) and
    /// decodes the JSON answer as `Response`.
    public func json<Response: Decodable>(
        _ method: HTTPMethod,
        _ path: String,
        body value: some Encodable,
        as type: Response.Type,
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder()
    ) async throws -> Response {
        try await json(method, url(for: path), body: value, as: type, encoder: encoder, decoder: decoder)
    }
}
