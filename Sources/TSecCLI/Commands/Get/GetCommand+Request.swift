import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import SecureSession
import TransportSecurity
import TransportSecurityNIO

extension GetCommand {
    /// The format of `-w`: the text, or with `@` a file's (`@-`: standard input).
    func loadWriteOut() throws -> WriteOutFormat? {
        guard let writeOutText = outputOptions.writeOutText else { return nil }
        guard writeOutText.hasPrefix("@") else { return try WriteOutFormat(writeOutText) }
        let format = try ArgumentFile.readArgument(String(writeOutText.dropFirst()), as: "the -w format file")
        return try WriteOutFormat(String(decoding: format, as: UTF8.self))
    }

    func makeRequest() throws -> SecureRequest {
        guard var target = URL(string: url), target.host != nil else {
            throw ValidationError("'\(url)' is not a URL with a host")
        }
        let parts = dataParts
        var body = parts.isEmpty ? nil : try DataArgument.body(of: parts)
        if requestOptions.dataInQuery, let query = body {
            target = try Self.url(target, appendingQuery: query)
            body = nil
        }
        var contentType = FormURLEncoding.contentType
        var bodyParts: [RequestBodyPart]?
        if !requestOptions.form.isEmpty {
            let multipart = SecureRequest.multipart(url: target, form: try MultipartFormArgument.form(requestOptions.form))
            (contentType, body, bodyParts) = (multipart.header("Content-Type") ?? contentType, multipart.body, multipart.bodyParts)
        }
        // A body changes the default method as curl's options do: -T a PUT, -d and -F a POST.
        var method = self.requestOptions.method
        if method == "GET", requestOptions.uploadFile != nil {
            method = "PUT"
        } else if method == "GET", body != nil || bodyParts != nil {
            method = "POST"
        }
        var headers = requestOptions.header.map { field in
            let parts = field.split(separator: ":", maxSplits: 1)
            return (String(parts[0]).trimmingCharacters(in: .whitespaces), String(parts.count > 1 ? parts[1] : "").trimmingCharacters(in: .whitespaces))
        }
        if let cookie = stateOptions.cookie, cookie.contains("=") { headers.append(("Cookie", cookie)) }
        if body != nil || bodyParts != nil, !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            headers.append(("Content-Type", contentType))
        }
        if let userAgent = requestOptions.userAgent { headers.append(("User-Agent", userAgent)) }
        // A -H of its own wins, as curl has it.
        if let bearerToken = authenticationOptions.bearerToken, !headers.contains(where: { $0.0.lowercased() == "authorization" }) { headers.append(("Authorization", "Bearer \(bearerToken)")) }
        var request = SecureRequest(HTTPMethod(rawValue: outputOptions.headOnly ? "HEAD" : method), url: target, headers: headers, body: body)
        request.bodyParts = bodyParts
        if let uploadFile = requestOptions.uploadFile, StreamedUpload.isStreamed(uploadFile) {
            request.bodyStream = try StreamedUpload.stream(uploadFile)
        } else {
            request.bodyFile = requestOptions.uploadFile
        }
        // Any status is a response, unless -f: then 400 and above are failures.
        request.validation = outputOptions.fail ? ResponseValidation(acceptableStatusCodes: Set(100..<400)) : ResponseValidation.none
        request.maximumResponseBodySize = outputOptions.maxFilesize
        request.timeout = TimeLimit.duration(connectionOptions.maxTime)
        if requestOptions.idempotencyKey, request.idempotencyKey == nil {
            try request.setIdempotencyKey(UUID().uuidString.lowercased())
        }
        return request
    }

    /// `-G`: `url` with `query` after a `?`, or after an `&` when it has a query already (its
    /// fragment dropped, as curl drops it from what it sends). What a URL cannot hold as it is,
    /// a space, is percent-encoded (Foundation's `URL(string:)`).
    static func url(_ url: URL, appendingQuery query: Data) throws -> URL {
        let text = url.absoluteString
        let withoutFragment = text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
        let separator = url.query(percentEncoded: true) == nil ? "?" : (withoutFragment.hasSuffix("?") || withoutFragment.hasSuffix("&") ? "" : "&")
        let joined = withoutFragment + separator + String(decoding: query, as: UTF8.self)
        guard let appended = URL(string: joined) else {
            throw ValidationError("-G: the data options' parts do not make a URL query (percent-encode them, or use --data-urlencode)")
        }
        return appended
    }
}
