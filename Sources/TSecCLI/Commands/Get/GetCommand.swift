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

    @OptionGroup var policy: PolicyOptions

    @Option(help: ArgumentHelp("curl's name for --system-roots: a PEM bundle that replaces the system trust store.", valueName: "FILE"))
    var cacert: String?

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "curl's -k: --allow-invalid-certificates and --no-domain-validation together (pins still apply).")
    var insecure = false

    @Option(name: .customLong("pin-sha256"), help: "An SPKI pin (sha256/<base64>) some certificate of the chain must carry. Repeatable.")
    var spkiPins: [String] = []

    @Option(
        name: .customLong("pinnedpubkey"),
        help: ArgumentHelp(
            "curl's --pinnedpubkey: sha256//BASE64 digests joined by ';', or a public key file (PEM or DER); the leaf's key must be one of them, as in curl (--pin-sha256 matches keys above the leaf too). Repeatable.",
            valueName: "sha256//BASE64[;…]|FILE"
        )
    )
    var pinnedPublicKeys: [String] = []

    @OptionGroup var identity: ClientIdentityOptions

    @Option(name: [.customShort("H"), .long], help: "A request header, 'Name: value'. Repeatable.")
    var header: [String] = []

    @Option(name: [.customShort("X"), .customLong("request")], help: "The request method.")
    var method: String = "GET"

    @Option(
        name: [.customShort("d"), .long, .customLong("data-ascii")],
        help: "The request body, as curl's -d: @FILE reads it from a file without its line breaks (CR and LF), @- from standard input. The parts of every data option are joined with '&' in command-line order. Sent as application/x-www-form-urlencoded unless -H sets a Content-Type."
    )
    var data: [DataOption<ASCIIData>] = []

    @Option(name: .customLong("data-binary"), help: ArgumentHelp("A body part as -d, but @FILE's content as it is, line breaks kept (curl's --data-binary).", valueName: "DATA"))
    var dataBinary: [DataOption<BinaryData>] = []

    @Option(name: .customLong("data-raw"), help: ArgumentHelp("A body part as -d, but a leading @ is text, not a file (curl's --data-raw).", valueName: "DATA"))
    var dataRaw: [DataOption<RawData>] = []

    @Option(
        name: .customLong("data-urlencode"),
        help: ArgumentHelp(
            "A body part percent-encoded, as curl's --data-urlencode: CONTENT, =CONTENT, NAME=CONTENT (the name as it is), @FILE or NAME@FILE (the file's content).",
            valueName: "DATA"
        )
    )
    var dataURLEncode: [DataOption<URLEncodedData>] = []

    @Flag(name: [.customShort("G"), .customLong("get")], help: "Send the data options' parts in the URL's query, in a GET (a HEAD with -I), as curl's -G.")
    var dataInQuery = false

    /// Where the body goes: `-o`'s file, `-O`'s, or `nil` (standard output).
    var output: String? { outputFile ?? (remoteName ? Self.remoteFileName(of: url) : nil) }

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
        (data.map(\.part) + dataBinary.map(\.part) + dataRaw.map(\.part) + dataURLEncode.map(\.part)).sorted { $0.position < $1.position }
    }

    @Option(
        name: [.customShort("F"), .long],
        help: "A multipart/form-data field (a POST unless -X says otherwise), as curl's -F: NAME=VALUE, NAME=@FILE[;type=MEDIA][;filename=NAME] (a file), NAME=<FILE (a file's content as the value). Repeatable; not with -d."
    )
    var form: [String] = []

    @Option(
        name: [.customShort("T"), .customLong("upload-file")],
        help: "Send this file as the body, read part by part as it is sent (never held in memory), as curl's -T: a PUT unless -X says otherwise. '-' (standard input) or a pipe: sent chunked as it comes. Not with -d or -F."
    )
    var uploadFile: String?

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the body to this file instead of stdout.")
    var outputFile: String?

    @Flag(name: [.customShort("O"), .customLong("remote-name")], help: "Write the body to a file of the current directory named as the URL's last path segment (curl's -O). Not with -o.")
    var remoteName = false

    @Option(
        name: [.customShort("D"), .customLong("dump-header")],
        help: ArgumentHelp("Write the status line and header fields of the response to this file, '-' standard output (curl's -D).", valueName: "FILE")
    )
    var dumpHeader: String?

    @Flag(name: [.customShort("N"), .customLong("no-buffer")], help: "Accepted for curl's scripts: a body for standard output is written as it arrives anyway.")
    var noBuffer = false

    @Option(
        name: [.customShort("C"), .customLong("continue-at")],
        help: ArgumentHelp(
            "'-': continue the partial file of --output, asking only for the bytes after it (curl's -C -). A server that sends the whole body replaces the file; one that says the file is whole leaves it. A transfer that breaks keeps what arrived, for the next -C -. Not with --compressed.",
            valueName: "-"
        )
    )
    var continueAt: String?

    @Option(help: "The longest body accepted, in bytes: printed as it arrives to stdout (no limit unless given), held for --json (64 MiB unless given); --output streams to its file without this limit.")
    var maxFilesize: Int?

    @Flag(help: "Ask for a compressed response (Accept-Encoding: deflate, gzip) and print it decoded, as curl's --compressed.")
    var compressed = false

    @Flag(name: .customLong("http1.1"), help: "Offer HTTP/1.1 only (by default HTTP/2 is offered through ALPN and used when the server agrees).")
    var http1Only = false

    @Flag(name: .customLong("tlsv1.2"), help: "Use TLS 1.2 or later (curl's --tlsv1.2; the default).")
    var tls12OrLater = false

    @Flag(name: .customLong("tlsv1.3"), help: "Use TLS 1.3 or later (curl's --tlsv1.3).")
    var tls13OrLater = false

    @Option(
        name: .customLong("tls-max"),
        help: ArgumentHelp(
            "The newest TLS version used: 1.2, 1.3 or default (curl's --tls-max). 1.2 lets a server that asks for a client certificate after the handshake (Apache's per-location SSLVerifyClient) ask by renegotiation.",
            valueName: "VERSION"
        )
    )
    var tlsMax: String?

    @Flag(name: [.customShort("i"), .long], help: "Print the status line and headers before the body.")
    var include = false

    @Flag(name: [.customShort("I"), .customLong("head")], help: "Send a HEAD request and print the status line and headers (curl's -I).")
    var headOnly = false

    @Option(name: [.customShort("A"), .customLong("user-agent")], help: "The User-Agent field to send (curl's -A); TransportSecurity/1 unless given.")
    var userAgent: String?

    @Flag(name: [.customShort("L"), .customLong("location")], help: "Accepted for curl's scripts: redirects are followed anyway, up to --max-redirs.")
    var location = false

    @Option(help: ArgumentHelp("The most redirects followed for the request (curl's --max-redirs), 0 to 100; one more fails the request, exit 3.", valueName: "N"))
    var maxRedirs: Int = 10

    @Flag(name: [.customShort("f"), .customLong("fail")], help: "An HTTP status of 400 or more prints no body (nor writes --output) and exits 22, as curl's -f.")
    var fail = false

    @Flag(help: "An HTTP status of 400 or more exits 22 after the body is printed or written, as curl's --fail-with-body. Not with -f.")
    var failWithBody = false

    @Flag(name: [.customShort("s"), .long], help: "Print no error message (curl's -s); the exit status still tells what happened.")
    var silent = false

    @Flag(name: [.customShort("S"), .customLong("show-error")], help: "With -s, print error messages after all (curl's -sS).")
    var showError = false

    @Option(name: [.customShort("m"), .long], help: "The most seconds the whole request may take (each attempt, with --retry).")
    var maxTime: Double = 60

    @Option(help: ArgumentHelp("The most seconds making a connection may take (TCP, a proxy, TLS), within --max-time.", valueName: "SECONDS"))
    var connectTimeout: Double = 10

    @Option(
        name: .customLong("expect100-timeout"),
        help: ArgumentHelp(
            "How long a body of 1 MiB or more (or of unknown length) waits for the server's 100 Continue before it is sent anyway (curl's; Expect: 100-continue over HTTP/1.1, so that a challenge or a refusal costs no upload). 0: bodies never wait.",
            valueName: "SECONDS"
        )
    )
    var expect100Timeout: Double = 1

    @Option(
        name: [.customShort("u"), .long],
        help: ArgumentHelp(
            "The user and password answering the server's HTTP Basic or Digest challenge, as curl's -u; without :PASSWORD it is asked on the terminal. Sent only to the URL's host and port, and only when the server asks (never up front, so a Digest server never sees the password).",
            valueName: "USER[:PASSWORD]"
        )
    )
    var user: String?

    @Option(
        name: .customLong("oauth2-bearer"),
        help: ArgumentHelp("Send Authorization: Bearer TOKEN (curl's --oauth2-bearer); not to another host a redirect leads to. Not with -u.", valueName: "TOKEN")
    )
    var bearerToken: String?

    @OptionGroup var retrying: RetryOptions

    @Flag(help: "Send an Idempotency-Key field with a new random key (a UUID, as a structured string: Idempotency-Key: \"…\") unless a -H gives one, so that a server that honours it processes the request once however often it comes: --retry then sends a POST or PATCH again after it may have reached the server, and after a 409. When the request fails with its fate unknown, the key is printed, to send it again with -H.")
    var idempotencyKey = false

    @OptionGroup var oauth: OAuthOptions

    @OptionGroup var signing: MessageSigningOptions

    @OptionGroup var responseVerification: ResponseVerificationOptions

    @OptionGroup var revocation: RevocationOptions

    @Flag(help: "Complete a chain the server sent without its intermediate certificates by fetching them from the caIssuers URLs of its certificates (authority information access), as Apple's SecTrust does; each fetched certificate is checked like a presented one. The URLs come from the server: a hostile one can make tsec GET a URL of its choosing.")
    var fetchIntermediates = false

    @Option(
        name: [.customShort("w"), .customLong("write-out")],
        help: ArgumentHelp(
            "Print this once the transfer is over, failed or not (curl's -w): %{http_code}, %{http_version}, %{content_type}, %{url_effective}, %{num_redirects}, %{num_retries}, %{num_connects}, %{size_download}, %{speed_download}, %{size_upload}, %{speed_upload}, %{time_connect}, %{time_appconnect}, %{time_pretransfer}, %{time_starttransfer}, %{time_total}, %{ssl_verify_result}, %{exitcode}, %{errormsg}, %header{NAME}; %{stderr} and %{stdout} choose where what follows goes; \\n, \\t, %%. @FILE reads the format from a file (@- from standard input). An unknown variable is refused.",
            valueName: "FORMAT"
        )
    )
    var writeOutText: String?

    @Flag(help: "Print status, headers, timing and the trust decision as JSON.")
    var json = false

    @Flag(name: [.customShort("v"), .long], help: "Tell on standard error what the session does: connections, trust decisions, redirects, retries, ignored cookies (lines starting with '*').")
    var verbose = false

    @Option(help: "Transport rules to apply: an Info.plist (XML or binary) with NSAppTransportSecurity, or JSON with the same keys.")
    var config: String?

    @Option(name: [.customShort("x"), .long], help: "Go through this proxy: HTTP, [http://][user:password@]host[:port] (https:// URLs through a CONNECT tunnel), HTTPS, https://[user:password@]host[:port] (the same over TLS with the proxy, port 443 by default), or SOCKS5, socks5://[user:password@]host[:port] (names resolved here) or socks5h://[user:password@]host[:port] (names resolved by the proxy). Without it, https_proxy/HTTPS_PROXY, http_proxy, ALL_PROXY and NO_PROXY are read, as curl does.")
    var proxy: String?

    @Option(name: .customLong("proxy-pin-sha256"), help: "An SPKI pin (sha256/<base64>) some certificate of an https:// proxy's chain must carry, besides a valid chain to the system roots for the proxy's name (curl's --proxy-pinnedpubkey). Repeatable.")
    var proxyPins: [String] = []

    @Option(help: "Hosts that go direct, comma separated ('*' for every host), as NO_PROXY writes them.")
    var noproxy: String?

    @Option(help: "Connect to ADDRESS for HOST:PORT instead of asking DNS (curl's HOST:PORT:ADDRESS); the host name is still sent and verified. Repeatable.")
    var resolve: [String] = []

    @Option(name: [.customShort("b"), .long], help: "Cookies to send: 'NAME=VALUE; NAME2=VALUE2' as they are, or a cookie file (curl's Netscape format; a missing file is an empty jar) whose cookies go with the requests they apply to, redirects included.")
    var cookie: String?

    @Option(name: [.customShort("c"), .customLong("cookie-jar")], help: "Keep the cookies servers set (redirects included) and write them all to this file at the end, in curl's cookie-file format, readable by its owner only.")
    var cookieJar: String?

    @Option(help: "Keep known HSTS hosts in this file, curl's --hsts cache (a missing file starts empty; '' keeps them for this run only): http:// URLs of hosts that sent Strict-Transport-Security over trusted https are sent as https://, redirects included; the file is written back at the end, readable by its owner only.")
    var hsts: String?

    /// Creates the command (for ArgumentParser).
    public init() {}
}
