import ArgumentParser
import Foundation
import TransportSecurityNIO

/// A secret named on the command line by where it is, never by its value: an environment
/// variable, or a file whose first line it is (a passphrase, an OAuth client secret).
enum SecretArgument {
    /// The secret from the variable `environment`, else from `file`; `nil` with neither.
    /// - Parameters:
    ///   - option: The option naming the variable, said in the error when it is not set.
    ///   - what: What the file is, for the error when it cannot be read.
    /// - Throws: a `ValidationError` for a variable that is not set, an unreadable file.
    static func read(environment: String?, file: String?, as what: String, option: String? = nil) throws -> String? {
        if let environment {
            guard let value = ProcessInfo.processInfo.environment[environment] else {
                throw ValidationError("the environment variable \(environment)\(option.map { " (\($0))" } ?? "") is not set")
            }
            return value
        }
        if let file {
            return ClientIdentityFile.passphrase(inFileContents: try ArgumentFile.read(file, as: what))
        }
        return nil
    }
}
