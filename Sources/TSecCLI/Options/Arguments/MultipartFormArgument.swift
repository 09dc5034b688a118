import ArgumentParser
import Foundation
import SecureSession
import TransportSecurity

/// The fields of `tsec get -F`, read as curl reads them: `NAME=VALUE` (text), `NAME=@FILE`
/// with optional `;type=MEDIA` and `;filename=NAME` (a file, its media type guessed from its
/// extension unless given; a regular file streamed as the request is sent, `-` or a pipe read
/// now), `NAME=<FILE` (a file's content as a text value).
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
                var contentType = MultipartForm.mediaType(ofFileNamed: path)
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
                if isReadableRegularFile(path) {
                    form.appendFile(at: path, name: name, filename: filename, contentType: contentType)
                } else {
                    form.append(try read(path, for: argument), name: name, filename: filename, contentType: contentType)
                }
            } else if value.hasPrefix("<") {
                form.append(String(decoding: try read(String(value.dropFirst()), for: argument), as: UTF8.self), name: name)
            } else {
                form.append(String(value), name: name)
            }
        }
        return form
    }

    /// Whether `path` is a regular file this process can open: such a file is read as the
    /// request is sent (never held in memory); anything else (`-`, a pipe) is read now, and a
    /// path that cannot be read fails here, before anything is sent.
    private static func isReadableRegularFile(_ path: String) -> Bool {
        guard path != "-", !path.utf8.contains(0) else { return false }
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return false }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    private static func read(_ path: String, for argument: String) throws -> Data {
        do {
            return try RequestBodyFile.read(path)
        } catch {
            throw ValidationError("-F '\(argument)': the file \(path) cannot be read: \(error)")
        }
    }
}
