import ArgumentParser
import Foundation
import SecureSession

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `tsec get -u USER[:PASSWORD]`, curl's: the user and password that answer the HTTP Basic or
/// Digest challenges of the URL's server. Without `:PASSWORD`, the password is asked on the
/// terminal without echo, so that it appears neither in the shell's history nor in `ps`.
struct UserArgument {
    let user: String
    let password: String

    /// Splits `text` at its first colon; with none, asks `readPassword` for the password.
    init(_ text: String, readPassword: (String) throws -> String = UserArgument.askOnTerminal) throws {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let user = parts.first, !user.isEmpty else {
            throw ValidationError("-u/--user needs a user name: USER:PASSWORD, or USER to be asked for the password")
        }
        self.user = String(user)
        self.password = parts.count == 2 ? String(parts[1]) : try readPassword(self.user)
    }

    /// The credential stored for the URL's server: Basic and Digest, every realm. A redirect to
    /// another host or port does not carry it (curl's rule without `--location-trusted`).
    func store(in store: CredentialStore, for url: URL) {
        guard let host = url.host else { return }
        let isSecure = url.scheme?.lowercased() == "https"
        let port = url.port ?? (isSecure ? 443 : 80)
        for method in [ProtectionSpace.Method.httpBasic, .httpDigest] {
            store.set(.user(user, password: password), for: ProtectionSpace(host: host, port: port, isSecure: isSecure, realm: nil, method: method))
        }
    }

    /// Asks for `user`'s password on the controlling terminal (`/dev/tty`) with echo off, as
    /// curl does; without a terminal (a script, a pipe), says how to give it instead.
    static func askOnTerminal(for user: String) throws -> String {
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard terminal >= 0 else {
            throw ValidationError("-u \(user) has no password and there is no terminal to ask for it: give -u \(user):PASSWORD")
        }
        defer { close(terminal) }
        var saved = termios()
        let canHideEcho = tcgetattr(terminal, &saved) == 0
        if canHideEcho {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(terminal, TCSAFLUSH, &silent)
        }
        defer {
            if canHideEcho { _ = tcsetattr(terminal, TCSAFLUSH, &saved) }
        }
        let prompt = "Enter host password for user '\(user)':"
        _ = prompt.withCString { write(terminal, $0, strlen($0)) }
        var typed: [UInt8] = []
        var byte: UInt8 = 0
        while read(terminal, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            typed.append(byte)
        }
        _ = write(terminal, "\n", 1)
        return String(decoding: typed, as: UTF8.self)
    }
}
