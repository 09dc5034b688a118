import ArgumentParser
import Foundation
import SecureSession
import TransportSecurity

/// Files named on `tsec get`'s command line, read with a failure (exit 2) that says what the
/// file was for: `the cookie file jar.txt cannot be read: no such file`.
enum ArgumentFile {
    /// The bytes of `path`, at most `limit`; `what` names it in a failure (`the HSTS file`).
    static func read(_ path: String, as what: String, limit: Int = InputFile.defaultLimit) throws -> Data {
        do {
            return try InputFile.read(path, limit: limit)
        } catch {
            throw ValidationError("\(what) \(path) cannot be read: \(error)")
        }
    }

    /// The bytes of an `@FILE` argument's file, `-` being standard input (``RequestBodyFile``'s
    /// rules); `what` names it in a failure.
    static func readArgument(_ named: String, as what: String) throws -> Data {
        do {
            return try RequestBodyFile.read(named)
        } catch {
            throw ValidationError("\(what) \(named == "-" ? "/dev/stdin" : named) cannot be read: \(error)")
        }
    }
}
