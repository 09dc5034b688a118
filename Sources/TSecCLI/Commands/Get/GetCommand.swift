import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import SecureSession
import TransportSecurity
import TransportSecurityNIO

/// `tsec get URL`: a small curl for pinned and mutual TLS, through `SecureSession`.
public struct GetCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Make an HTTPS request with a security policy, pins and an optional client identity.",
        discussion: """
            The body goes to stdout (or to --output). Exit status: 0 a response was received (any \
            status, unless -f or --fail-with-body), 1 the server's trust was rejected, 2 usage or unreadable input (bad \
            file, wrong passphrase), 3 connection, TLS, timeout or redirect failure, or a body longer \
            than --max-filesize, 4 refused by the transport rules of --config, 22 with -f or \
            --fail-with-body an HTTP status of 400 or more.
            """
    )

    @Argument(help: "The URL (https:// or http://).")
    var url: String

    @OptionGroup(title: "Server trust") var policy: PolicyOptions

    @OptionGroup(title: "Server trust") var trustOptions: GetTrustOptions

    @OptionGroup(title: "Server trust") var revocation: RevocationOptions

    @OptionGroup(title: "Client identity") var identity: ClientIdentityOptions

    @OptionGroup(title: "Request") var requestOptions: GetRequestOptions

    @OptionGroup(title: "Authentication") var authenticationOptions: GetAuthenticationOptions

    @OptionGroup(title: "Authentication") var oauth: OAuthOptions

    @OptionGroup(title: "Connection") var connectionOptions: GetConnectionOptions

    @OptionGroup(title: "Connection") var retrying: RetryOptions

    @OptionGroup(title: "Cookies and HSTS") var stateOptions: GetStateOptions

    @OptionGroup(title: "Output") var outputOptions: GetOutputOptions

    @OptionGroup(title: "Message signatures") var signing: MessageSigningOptions

    @OptionGroup(title: "Message signatures") var responseVerification: ResponseVerificationOptions

    /// Where the body goes: `-o`'s file, `-O`'s, or `nil` (standard output).
    var output: String? { outputOptions.outputFile ?? (outputOptions.remoteName ? Self.remoteFileName(of: url) : nil) }

    /// `-O`'s file name: the URL's last path segment as the URL writes it (not percent-decoded,
    /// as curl has it); `nil` when there is none, or it is `.` or `..`.
    public static func remoteFileName(of url: String) -> String? {
        guard let path = URL(string: url)?.path(percentEncoded: true), let last = path.split(separator: "/", omittingEmptySubsequences: false).last else {
            return nil
        }
        return last.isEmpty || last == "." || last == ".." ? nil : String(last)
    }

    /// The parts of every data option, in command-line order.
    var dataParts: [DataArgument] {
        (requestOptions.data.map(\.part) + requestOptions.dataBinary.map(\.part) + requestOptions.dataRaw.map(\.part) + requestOptions.dataURLEncode.map(\.part)).sorted { $0.position < $1.position }
    }

    /// Creates the command (for ArgumentParser).
    public init() {}
}
