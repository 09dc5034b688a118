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
            // Interrupted while echo is off (^C, ^\, a kill), the terminal gets its echo back
            // before the process ends.
            EchoRestorer.arm(terminal: terminal, settings: saved)
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(terminal, TCSAFLUSH, &silent)
        }
        defer {
            if canHideEcho {
                _ = tcsetattr(terminal, TCSAFLUSH, &saved)
                EchoRestorer.disarm()
            }
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

/// Gives a terminal its settings back when a signal ends the process while a password is read
/// with echo off (a shell would otherwise be left typing blind). The signal handler can see only
/// globals: these are written before it is installed and read by it alone.
private enum EchoRestorer {
    nonisolated(unsafe) private static var terminal: Int32 = -1
    /// The settings to restore, in memory allocated once for the life of the process. Not a
    /// global `termios`: Swift 6.3 lays such a global out without the struct's inner padding
    /// (57 bytes where `termios` takes 60 on Linux), so storing settings in it wrote 3 bytes past
    /// its end (AddressSanitizer: global-buffer-overflow). First touched by ``arm(terminal:settings:)``,
    /// before any handler is installed.
    nonisolated(unsafe) private static let settings: UnsafeMutablePointer<termios> = {
        let settings = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        settings.initialize(to: termios())
        return settings
    }()
    /// The handlers in place before, put back once the password is read.
    nonisolated(unsafe) private static var previous: [(Int32, sighandler_t?)] = []
    private static let signals = [SIGINT, SIGTERM, SIGQUIT, SIGHUP]

    /// Restores `settings` on `terminal` if one of the signals comes.
    static func arm(terminal descriptor: Int32, settings saved: termios) {
        terminal = descriptor
        settings.pointee = saved
        previous = signals.map { number in
            (number, signal(number) { received in
                _ = tcsetattr(EchoRestorer.terminal, TCSANOW, EchoRestorer.settings)
                signal(received, SIG_DFL)
                raise(received)
            })
        }
    }

    /// The password was read: the signals are handled as before.
    static func disarm() {
        for (number, handler) in previous { signal(number, handler) }
        previous = []
    }
}
