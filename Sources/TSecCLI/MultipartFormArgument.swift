import ArgumentParser
import Foundation
import SecureSession
import TransportSecurity

/// The fields of `tsec get -F`, read as curl reads them: `NAME=VALUE` (text), `NAME=@FILE`
/// with optional `;type=MEDIA` and `;filename=NAME` (a file, its media type guessed from its
/// extension unless given), `NAME=<FILE` (a file's content as a text value).
enum MultipartFormArgument {
    /// The form of `arguments`, files read.
    static func form(_ arguments: [String]) throws -> MultipartForm {
        var form = MultipartForm()
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "=") else {
                throw ValidationError("-F '\(argument)' is not NAME=VALUE, NAME=@FILE or NAME=<FILE")
            }
            let name = String(argument[..<equals])
            let value = argument[argument.index(after: equals)...]
            if value.hasPrefix("@") {
                var fields = value.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
                let path = fields.removeFirst()
                var contentType = mediaType(ofFileNamed: path)
                var filename = (path as NSString).lastPathComponent
                for field in fields {
                    if field.hasPrefix("type=") {
                        contentType = String(field.dropFirst("type=".count))
                    } else if field.hasPrefix("filename=") {
                        filename = String(field.dropFirst("filename=".count))
                    } else {
                        throw ValidationError("-F '\(argument)': '\(field)' is not type=MEDIA or filename=NAME")
                    }
                }
                form.append(try read(path, for: argument), name: name, filename: filename, contentType: contentType)
            } else if value.hasPrefix("<") {
                form.append(String(decoding: try read(String(value.dropFirst()), for: argument), as: UTF8.self), name: name)
            } else {
                form.append(String(value), name: name)
            }
        }
        return form
    }

    private static func read(_ path: String, for argument: String) throws -> Data {
        do {
            return try RequestBodyFile.read(path)
        } catch {
            throw ValidationError("-F '\(argument)': the file \(path) cannot be read: \(error)")
        }
    }

    /// The media type curl and browsers would send for a file with this name's extension.
    static func mediaType(ofFileNamed name: String) -> String {
        let types = [
            "txt": "text/plain", "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
            "json": "application/json", "xml": "application/xml", "pdf": "application/pdf", "zip": "application/zip",
            "gz": "application/gzip", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
            "svg": "image/svg+xml", "pem": "application/x-pem-file", "der": "application/pkix-cert", "p12": "application/x-pkcs12",
        ]
        return types[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
    }
}
