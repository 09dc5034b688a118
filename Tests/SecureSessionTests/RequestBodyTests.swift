import Foundation
import SecureSession
import TestServers
import Testing

/// Form and multipart bodies, read back by an independent parser (Python's standard library).
@Suite("Request bodies: forms and multipart/form-data")
struct RequestBodyTests {
    /// Runs a Python snippet over `body` written to a file (its path is `sys.argv[1]`).
    static func python(_ script: String, body: Data, arguments: [String] = []) throws -> String {
        let directory = NSTemporaryDirectory() + "tsec-body-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body.write(to: URL(fileURLWithPath: directory + "/body"))
        try script.write(toFile: directory + "/check.py", atomically: true, encoding: .utf8)
        return try shell("python3 '\(directory)/check.py' '\(directory)/body' " + arguments.map { "'\($0)'" }.joined(separator: " "))
    }

    /// Each part of a `multipart/form-data` body as Python's `email` parser reads it: its name,
    /// file name, media type, bytes and header names.
    static func parsedMultipart(_ body: Data, contentType: String) throws -> [[Any]] {
        let parsed = try python("""
            import sys, json, email.parser, email.policy
            body = open(sys.argv[1], 'rb').read()
            message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(b'Content-Type: ' + sys.argv[2].encode() + b'\\r\\n\\r\\n' + body)
            print(json.dumps([[p.get_param('name', header='content-disposition'), p.get_filename(), p.get_content_type(), list(p.get_payload(decode=True)), sorted(p.keys())] for p in message.iter_parts()]))
            """, body: body, arguments: [contentType])
        return try #require(try JSONSerialization.jsonObject(with: Data(parsed.utf8)) as? [[Any]])
    }

    @Test("a form body encodes every byte but letters, digits and *-._, a space as +; a parser gets the fields back as given")
    func form() throws {
        let fields = [("a b", "x&y=z+1"), ("ü", "%20/?#"), ("a b", ""), ("*-._", "~!")]
        let body = FormURLEncoding.encode(fields)
        #expect(String(decoding: body, as: UTF8.self) == "a+b=x%26y%3Dz%2B1&%C3%BC=%2520%2F%3F%23&a+b=&*-._=%7E%21")
        let decoded = try Self.python("""
            import sys, urllib.parse, json
            print(json.dumps(urllib.parse.parse_qsl(open(sys.argv[1]).read(), keep_blank_values=True, strict_parsing=True)))
            """, body: body)
        let pairs = try #require(try JSONSerialization.jsonObject(with: Data(decoded.utf8)) as? [[String]])
        #expect(pairs == fields.map { [$0.0, $0.1] })
        let request = SecureRequest.form(url: URL(string: "https://example.com/login")!, fields: fields)
        #expect(request.method == .post && request.header("Content-Type") == "application/x-www-form-urlencoded" && request.body == body)
    }

    @Test("a multipart body: text fields and files in order, names that cannot break out of their quotes, a boundary found in no part")
    func multipart() throws {
        var form = MultipartForm()
        form.append("Quarterly report", name: "title")
        let binary = Data((0..<256).map(UInt8.init)) + Data("\r\n--TransportSecurity-\r\n".utf8)
        form.append(binary, name: "file", filename: "q3 \"final\".pdf", contentType: "application/pdf")
        form.append("x", name: "evil\"; filename=\"injected\r\nX-Injected: 1")
        // A quote followed by a combining mark is one Character with it, but still a quote.
        form.append(Data("y".utf8), name: "upload", filename: "x\"\u{301}; name=\"role")
        let (contentType, body) = try form.encoded()
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        #expect(contentType.hasPrefix("multipart/form-data; boundary=TransportSecurity-") && boundary.count == 50)
        #expect(form.parts.allSatisfy { if case .data(let data) = $0.content { data.range(of: Data(boundary.utf8)) == nil } else { false } })
        let parts = try Self.parsedMultipart(body, contentType: contentType)
        #expect(parts.count == 4)
        #expect(parts.map { $0[0] as? String } == ["title", "file", "evil%22; filename=%22injected%0D%0AX-Injected: 1", "upload"])
        #expect(parts.map { $0[1] as? String } == [nil, "q3 %22final%22.pdf", nil, "x%22\u{301}; name=%22role"])
        #expect(parts.map { $0[2] as? String } == ["text/plain", "application/pdf", "text/plain", "application/octet-stream"])
        #expect((parts[1][3] as? [Int]) == binary.map(Int.init))
        #expect(parts.allSatisfy { ($0[4] as? [String])?.contains("X-Injected") == false })
        let request = SecureRequest.multipart(url: URL(string: "https://example.com/upload")!, form: form)
        #expect(request.method == .post && request.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(request.body?.count == body.count && request.bodyParts == nil, "a form held in memory is one body")
    }
}
