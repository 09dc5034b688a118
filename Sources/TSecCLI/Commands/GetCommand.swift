import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import SecureSession
import TransportSecurity
import TransportSecurityNIO

/// `tsec get URL`: a small curl for pinned and mutual TLS, through ``SecureSession``.
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
    private var output: String? { outputFile ?? (remoteName ? Self.remoteFileName(of: url) : nil) }

    /// `-O`'s file name: the URL's last path segment as the URL writes it (not percent-decoded,
    /// as curl has it); `nil` when there is none, or it is `.` or `..`.
    public static func remoteFileName(of url: String) -> String? {
        guard let path = URL(string: url)?.path(percentEncoded: true), let last = path.split(separator: "/", omittingEmptySubsequences: false).last else {
            return nil
        }
        return last.isEmpty || last == "." || last == ".." ? nil : String(last)
    }

    /// The parts of every data option, in command-line order.
    private var dataParts: [DataArgument] {
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

    /// Refuses option combinations that make no sense, before anything is read.
    public func validate() throws {
        try TimeLimit.validate(maxTime)
        try TimeLimit.validate(connectTimeout, option: "--connect-timeout")
        if expect100Timeout != 0 { try TimeLimit.validate(expect100Timeout, option: "--expect100-timeout") }
        if let maxFilesize, maxFilesize < 0 { throw ValidationError("--max-filesize must not be negative") }
        let hasData = !dataParts.isEmpty
        if remoteName, outputFile != nil { throw ValidationError("-O names the output file after the URL, -o names it: give one of them") }
        if remoteName, Self.remoteFileName(of: url) == nil {
            throw ValidationError("-O: the URL '\(url)' has no file name at the end of its path (use -o FILE)")
        }
        if fail, failWithBody { throw ValidationError("-f prints no body for a status of 400 or more, --fail-with-body prints it: give one of them") }
        if tls12OrLater, tls13OrLater { throw ValidationError("--tlsv1.2 and --tlsv1.3 each set the lowest TLS version: give one of them") }
        if let tlsMax, !["1.2", "1.3", "default"].contains(tlsMax) {
            throw ValidationError("--tls-max takes 1.2, 1.3 or default, not '\(tlsMax)' (TLS 1.0 and 1.1 only through a transport rule's NSExceptionMinimumTLSVersion)")
        }
        if tls13OrLater, tlsMax == "1.2" { throw ValidationError("--tlsv1.3 and --tls-max 1.2 leave no TLS version") }
        if dumpHeader == "-", json { throw ValidationError("-D - writes the header fields to standard output, where --json writes its report: give -D a file") }
        if bearerToken != nil, user != nil { throw ValidationError("--oauth2-bearer and -u both answer for the user: give one of them") }
        if oauth.isRequested, bearerToken != nil || user != nil || header.contains(where: { $0.lowercased().hasPrefix("authorization:") }) {
            throw ValidationError("--oauth2-token-url (or --oauth2-issuer) gets the request's token: it goes with none of --oauth2-bearer, -u and -H 'Authorization: …'")
        }
        if bearerToken?.contains(where: { $0.isNewline }) == true { throw ValidationError("--oauth2-bearer: the token holds a line break") }
        if !form.isEmpty, hasData { throw ValidationError("-F (a multipart form) and -d (a body of its own) cannot go together") }
        if uploadFile != nil, !form.isEmpty || hasData { throw ValidationError("-T (a file as the body) goes with neither -d nor -F") }
        if dataInQuery, !form.isEmpty || uploadFile != nil { throw ValidationError("-G/--get puts the data options' parts in the URL: it goes with neither -F nor -T") }
        if let malformed = form.first(where: { !$0.contains("=") || $0.hasPrefix("=") }) {
            throw ValidationError("-F '\(malformed)' is not NAME=VALUE, NAME=@FILE or NAME=<FILE")
        }
        if let malformed = header.first(where: { !$0.contains(":") }) {
            throw ValidationError("-H '\(malformed)' is not 'Name: value'")
        }
        if cacert != nil, policy.systemRoots != nil { throw ValidationError("--cacert is curl's name for --system-roots: give one of them") }
        if headOnly, (hasData && !dataInQuery) || !form.isEmpty || uploadFile != nil || method != "GET" {
            throw ValidationError("-I/--head sends a HEAD request: it goes with none of -X, -d (but with -G), -F or -T")
        }
        guard (0...100).contains(maxRedirs) else { throw ValidationError("--max-redirs must be from 0 to 100, not \(maxRedirs)") }
        if let continueAt {
            guard continueAt == "-" else { throw ValidationError("-C/--continue-at takes '-' (continue from the end of the --output file), not '\(continueAt)'") }
            guard output != nil else { throw ValidationError("-C - continues the file of -o/--output, and there is none") }
            guard !compressed else { throw ValidationError("-C - cannot go with --compressed: ranges count the compressed bytes") }
        }
        if cookieJar?.isEmpty == true { throw ValidationError("-c/--cookie-jar needs a file name") }
        if responseVerification.isRequested, compressed {
            throw ValidationError("--verify-response-key checks the body as it was sent: it does not go with --compressed")
        }
        if responseVerification.isRequested, continueAt != nil {
            throw ValidationError("--verify-response-key checks whole answers: it does not go with -C (the file's first bytes came with no answer to verify)")
        }
        try ResolveOption.validate(resolve)
    }

    /// Makes the request and writes the response; returns the exit status of ``ExitStatus`` that
    /// fits the outcome (0 for any response, 22 for one of 400 or more under `-f`).
    public func execute(output terminal: CommandOutput) async -> Int32 {
        let request: SecureRequest
        var configuration: SecureSessionConfiguration
        let writeOut: WriteOutFormat?
        let revocationLists: [CertificateRevocationList]
        do {
            writeOut = try loadWriteOut()
            request = try makeRequest()
            configuration = try makeConfiguration(reportingTo: terminal)
            revocationLists = try revocation.loadLists()
            configuration.logger = logger(to: terminal)
            if verbose { configuration.requestHeadObserver = { head in Self.tell(head, to: terminal) } }
            configuration.decompression = compressed ? .enabled() : .disabled
            configuration.cookieJar = try makeCookieJar(logger: configuration.logger)
            configuration.interceptor = retrying.makePolicy(method: request.method.rawValue, failsOnHTTPErrors: fail || failWithBody)
            configuration.responseSignatures = try responseVerification.makeRequirement()
            configuration.hsts = try loadHSTS(logger: configuration.logger)
            configuration.expectContinue = expect100Timeout == 0 ? nil : ExpectContinue(timeout: TimeLimit.duration(expect100Timeout))
            // The files written at the end are checked first: a request is not sent for what
            // could not be kept.
            for file in [cookieJar, hsts, dumpHeader == "-" ? nil : dumpHeader].compactMap({ $0 }) where !file.isEmpty { try FileWriting.checkReplaceable(file) }
            // Last, so that a password is asked for only when everything else is in order.
            try user.map { try UserArgument($0) }?.store(in: configuration.credentialStore, for: request.url)
        } catch {
            complain("tsec get: \(error)", to: terminal)
            return ExitStatus.usageOrInput
        }
        // --revocation and --fetch-intermediates fetch through a session of their own, reaching
        // the network as this one does. Intermediates are fetched first: revocation is checked
        // on the path they complete.
        let sideSession = revocation.fetches || fetchIntermediates ? SecureSession(configuration: sideFetching(like: configuration)) : nil
        if fetchIntermediates, let sideSession {
            configuration.trustEvaluator = AnyServerTrustEvaluator(
                IntermediateFetchingEvaluator(configuration.trustEvaluator, fetcher: SessionIssuerFetcher(session: sideSession))
            )
        }
        configuration.trustEvaluator = revocation.evaluator(
            around: configuration.trustEvaluator,
            lists: revocationLists,
            fetcher: revocation.fetches ? sideSession.map { SessionRevocationFetcher(session: $0) } : nil
        )
        // The token endpoint is judged as the URL is, through a session without the token.
        let tokenSession = oauth.isRequested ? SecureSession(configuration: tokenFetching(like: configuration)) : nil
        do {
            if let tokenSession,
                let interceptor = try oauth.makeInterceptor(for: request.url, tokenSession: tokenSession, hasIdentity: configuration.clientIdentity != nil)
            {
                configuration.interceptor = ChainedInterceptor([interceptor] + [configuration.interceptor].compactMap { $0 })
            }
            // Last: the signature covers what the others added (a token, a DPoP proof).
            if let signer = try signing.makeSigner() {
                configuration.interceptor = ChainedInterceptor([configuration.interceptor].compactMap { $0 } + [signer])
            }
        } catch {
            complain("tsec get: \(error)", to: terminal)
            await tokenSession?.shutdown()
            await sideSession?.shutdown()
            return ExitStatus.usageOrInput
        }
        let session = SecureSession(configuration: configuration)
        let status = await fetch(request, with: session, writeOut: writeOut, to: terminal)
        await session.shutdown()
        await tokenSession?.shutdown()
        await sideSession?.shutdown()
        // What the run learnt is kept: the HSTS hosts always, the cookies when there are some
        // (as curl, a jar with no cookie leaves the file as it is: a failed request does not
        // empty it).
        var kept: [(file: String, text: String)] = []
        if let hsts, !hsts.isEmpty, let store = configuration.hsts { kept.append((hsts, CurlHSTSFile.text(of: store.entries()))) }
        if let cookieJar, let jar = configuration.cookieJar, !jar.cookies.isEmpty {
            var writable: [Cookie] = []
            for cookie in jar.cookies {
                guard let problem = NetscapeCookieFile.unwritable(cookie) else {
                    writable.append(cookie)
                    continue
                }
                complain("tsec get: \(cookieJar): \(problem)", to: terminal)
            }
            kept.append((cookieJar, NetscapeCookieFile.text(of: writable)))
        }
        for (file, text) in kept {
            do {
                try FileWriting.replaceOwnerOnly(file, contents: Data(text.utf8))
            } catch {
                complain("tsec get: \(error)", to: terminal)
                return status == ExitStatus.success ? ExitStatus.usageOrInput : status
            }
        }
        return status
    }

    /// An error message on standard error, unless `-s` (without `-S`) silences it.
    private func complain(_ text: String, to terminal: CommandOutput) {
        if !silent || showError { terminal.error(text) }
    }

    /// With `-v`, every log line of the session on standard error; otherwise none (the command
    /// reports the outcome itself).
    private func logger(to terminal: CommandOutput) -> Logger {
        Logger(label: "tsec.get") { _ in
            verbose ? CommandOutputLogHandler(output: terminal, logLevel: .debug) as any LogHandler : SwiftLogNoOpLogHandler()
        }
    }

    /// The HSTS store of `--hsts FILE`, loaded from the file when it exists; `nil` without it.
    private func loadHSTS(logger: Logger) throws -> HSTSStore? {
        guard let hsts else { return nil }
        // `--hsts ''`: HSTS for this run only, as curl has it.
        guard !hsts.isEmpty, FileManager.default.fileExists(atPath: hsts) else { return HSTSStore(logger: logger) }
        let data = try ArgumentFile.read(hsts, as: "the HSTS file", limit: 16 << 20)
        return HSTSStore(try CurlHSTSFile.entries(in: String(decoding: data, as: UTF8.self), source: hsts), logger: logger)
    }

    /// The cookie jar of `-b FILE` and `-c FILE`, loaded from `-b`'s file; `nil` without either
    /// (or with `-b NAME=VALUE`, sent as a header).
    private func makeCookieJar(logger: Logger) throws -> CookieJar? {
        let file = cookie.flatMap { $0.contains("=") ? nil : $0 }
        guard file != nil || cookieJar != nil else { return nil }
        let jar = CookieJar(logger: logger)
        guard let file, FileManager.default.fileExists(atPath: file) else { return jar }
        let data = try ArgumentFile.read(file, as: "the cookie file", limit: 16 << 20)
        for cookie in try NetscapeCookieFile.cookies(in: String(decoding: data, as: UTF8.self), source: file, at: Date()) {
            jar.store(cookie)
        }
        return jar
    }

    private func fetch(_ request: SecureRequest, with session: SecureSession, writeOut: WriteOutFormat?, to terminal: CommandOutput) async -> Int32 {
        let printedBytes = PrintedBytes(limit: maxFilesize)
        var transfer = WriteOutFormat.Transfer(response: nil, bodyBytes: 0, trustRejected: false, exitStatus: ExitStatus.success, errorMessage: "")
        // The bytes of the body sent, counted only when -w prints them (a body held in memory
        // then goes part by part).
        let uploaded = NIOLockedValueBox<Int64>(0)
        var request = request
        if writeOut?.reportsUploads == true, request.uploadProgress == nil {
            request.uploadProgress = { progress in uploaded.withLockedValue { $0 = progress.bytesSent } }
        }
        var failure: (any Error)?
        do {
            let response: SecureResponse
            var printed = false
            if let output {
                let before = continueAt == nil ? 0 : Self.size(of: output)
                let held = NIOLockedValueBox<Int64>(0)
                response = try await session.download(request, to: output, continuingPartialFile: continueAt != nil) { progress in
                    held.withLockedValue { $0 = progress.bytesReceived }
                }
                if verbose { Self.tell(ResponseHead(response), to: terminal) }
                // What this run put in the file (or device): a continued file's own bytes are
                // not counted.
                let after = held.withLockedValue { $0 }
                transfer.bodyBytes = response.statusCode == 206 ? after - before : response.statusCode == 416 ? 0 : after
            } else if !json, !responseVerification.isRequested {
                // Printed as it arrives (after the status line and headers with -i), never held
                // whole; --max-filesize, when given, still ends it.
                let include = include || headOnly || dumpHeader == "-"
                let verbose = verbose
                response = try await session.stream(request) { head in
                    if verbose { Self.tell(head, to: terminal) }
                    if include { Self.print(head, to: terminal) }
                } into: { part in
                    try printedBytes.add(part.count)
                    terminal.bytes(part)
                }
                printed = true
                transfer.bodyBytes = printedBytes.count
            } else {
                response = try await session.send(request)
                if verbose { Self.tell(ResponseHead(response), to: terminal) }
                transfer.bodyBytes = Int64(response.body.count)
            }
            report(response, bodyPrinted: printed, to: terminal)
            if verbose, !response.trailers.isEmpty {
                terminal.errorText(Self.trailerLines(of: response).map { "< \($0)\n" }.joined())
            }
            transfer.response = response
            if let dumpHeader, dumpHeader != "-" {
                do {
                    let text = Self.headText(ResponseHead(response)) + Self.trailerLines(of: response).map { $0 + "\n" }.joined()
                    try FileWriting.replaceOwnerOnly(dumpHeader, contents: Data(text.utf8))
                } catch {
                    complain("tsec get: -D: \(error)", to: terminal)
                    transfer.exitStatus = ExitStatus.usageOrInput
                }
            }
            if failWithBody, response.statusCode >= 400 {
                let refusal = SecureSessionError.unacceptableStatus(code: response.statusCode, body: Data())
                complain("tsec get: \(refusal)", to: terminal)
                transfer.errorMessage = refusal.description
                transfer.exitStatus = ExitStatus.httpError
            }
        } catch let error as SecureSessionError {
            failure = error
            complain("tsec get: \(error)", to: terminal)
            transfer.errorMessage = error.description
            switch error {
            case .trustRejected(let decision):
                if let mismatch = decision.pinMismatch { complain(mismatch.description, to: terminal) }
                if !fetchIntermediates, let hint = Self.fetchingHint(for: decision) { complain(hint, to: terminal) }
                transfer.trustRejected = true
                transfer.exitStatus = decision.decider.final == .transportRules ? ExitStatus.refusedByTransportRules : ExitStatus.rejected
            case .refusedByTransportRules:
                transfer.exitStatus = ExitStatus.refusedByTransportRules
            case .responseSignatureRejected, .redirectRefused:
                // The server's answer is not trusted, as a rejected certificate is not.
                transfer.exitStatus = ExitStatus.rejected
            case .invalidURL, .invalidRequest, .fileError, .unreadableUpload:
                transfer.exitStatus = ExitStatus.usageOrInput
            case .unacceptableStatus:
                // Only -f makes a status unacceptable.
                transfer.exitStatus = ExitStatus.httpError
            default:
                transfer.exitStatus = ExitStatus.connectionFailure
                // The request may have been processed: the key makes sending it again safe.
                if Self.mayHaveReachedServer(error), !request.method.isIdempotent, let field = request.idempotencyKeyFieldCarried {
                    complain("tsec get: the request may have been processed; send it again with the same key (-H '\(field.name): \(field.value)') and the server processes it once", to: terminal)
                }
            }
        } catch let error as HTTPSignatureError {
            // A covered field the request lacks, a body that cannot be digested: the caller's
            // to mend.
            failure = error
            complain("tsec get: \(error)", to: terminal)
            transfer.errorMessage = error.description
            transfer.exitStatus = ExitStatus.usageOrInput
        } catch let error as OAuthError {
            failure = error
            complain("tsec get: \(error)", to: terminal)
            transfer.errorMessage = error.description
            // Refused credentials or a request that may not carry a token are the caller's to
            // mend, as a wrong passphrase is; a token endpoint or metadata answering nonsense is
            // the server's.
            switch error {
            case .invalidTokenResponse, .unusableMetadata: transfer.exitStatus = ExitStatus.connectionFailure
            default: transfer.exitStatus = ExitStatus.usageOrInput
            }
        } catch {
            failure = error
            complain("tsec get: \(error)", to: terminal)
            transfer.errorMessage = "\(error)"
            transfer.exitStatus = ExitStatus.connectionFailure
        }
        if json, let failure { terminal.line(JSONOutput.encode(GetFailureReport(failure, exitStatus: transfer.exitStatus, idempotencyKey: request.idempotencyKey))) }
        if transfer.response == nil { transfer.bodyBytes = printedBytes.count }
        transfer.uploadedBytes = uploaded.withLockedValue { $0 }
        writeOut?.write(transfer, to: terminal)
        return transfer.exitStatus
    }

    /// The size of the regular file at `path`, 0 when there is none.
    private static func size(of path: String) -> Int64 {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular else { return 0 }
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// The format of `-w`: the text, or with `@` a file's (`@-`: standard input).
    private func loadWriteOut() throws -> WriteOutFormat? {
        guard let writeOutText else { return nil }
        guard writeOutText.hasPrefix("@") else { return try WriteOutFormat(writeOutText) }
        let format = try ArgumentFile.readArgument(String(writeOutText.dropFirst()), as: "the -w format file")
        return try WriteOutFormat(String(decoding: format, as: UTF8.self))
    }

    private func makeRequest() throws -> SecureRequest {
        guard var target = URL(string: url), target.host != nil else {
            throw ValidationError("'\(url)' is not a URL with a host")
        }
        let parts = dataParts
        var body = parts.isEmpty ? nil : try DataArgument.body(of: parts)
        if dataInQuery, let query = body {
            target = try Self.url(target, appendingQuery: query)
            body = nil
        }
        var contentType = FormURLEncoding.contentType
        var bodyParts: [RequestBodyPart]?
        if !form.isEmpty {
            let multipart = SecureRequest.multipart(url: target, form: try MultipartFormArgument.form(form))
            (contentType, body, bodyParts) = (multipart.header("Content-Type") ?? contentType, multipart.body, multipart.bodyParts)
        }
        // A body changes the default method as curl's options do: -T a PUT, -d and -F a POST.
        var method = self.method
        if method == "GET", uploadFile != nil {
            method = "PUT"
        } else if method == "GET", body != nil || bodyParts != nil {
            method = "POST"
        }
        var headers = header.map { field in
            let parts = field.split(separator: ":", maxSplits: 1)
            return (String(parts[0]).trimmingCharacters(in: .whitespaces), String(parts.count > 1 ? parts[1] : "").trimmingCharacters(in: .whitespaces))
        }
        if let cookie, cookie.contains("=") { headers.append(("Cookie", cookie)) }
        if body != nil || bodyParts != nil, !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            headers.append(("Content-Type", contentType))
        }
        if let userAgent { headers.append(("User-Agent", userAgent)) }
        // A -H of its own wins, as curl has it.
        if let bearerToken, !headers.contains(where: { $0.0.lowercased() == "authorization" }) { headers.append(("Authorization", "Bearer \(bearerToken)")) }
        var request = SecureRequest(HTTPMethod(rawValue: headOnly ? "HEAD" : method), url: target, headers: headers, body: body)
        request.bodyParts = bodyParts
        if let uploadFile, StreamedUpload.isStreamed(uploadFile) {
            request.bodyStream = try StreamedUpload.stream(uploadFile)
        } else {
            request.bodyFile = uploadFile
        }
        // Any status is a response, unless -f: then 400 and above are failures.
        request.validation = fail ? ResponseValidation(acceptableStatusCodes: Set(100..<400)) : ResponseValidation.none
        request.maximumResponseBodySize = maxFilesize
        request.timeout = TimeLimit.duration(maxTime)
        if idempotencyKey, request.idempotencyKey == nil {
            try request.setIdempotencyKey(UUID().uuidString.lowercased())
        }
        return request
    }

    /// Whether a request that failed with `error` may have reached the server and been processed
    /// with no answer heard: a connection that failed or broke, a timeout, an answer that broke
    /// off or made no sense, an interruption.
    private static func mayHaveReachedServer(_ error: SecureSessionError) -> Bool {
        switch error {
        case .connectionFailed, .timeout, .invalidResponse, .cancelled: return true
        default: return false
        }
    }

    /// `-G`: `url` with `query` after a `?`, or after an `&` when it has a query already (its
    /// fragment dropped, as curl drops it from what it sends). What a URL cannot hold as it is,
    /// a space, is percent-encoded (Foundation's `URL(string:)`).
    private static func url(_ url: URL, appendingQuery query: Data) throws -> URL {
        let text = url.absoluteString
        let withoutFragment = text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
        let separator = url.query(percentEncoded: true) == nil ? "?" : (withoutFragment.hasSuffix("?") || withoutFragment.hasSuffix("&") ? "" : "&")
        let joined = withoutFragment + separator + String(decoding: query, as: UTF8.self)
        guard let appended = URL(string: joined) else {
            throw ValidationError("-G: the data options' parts do not make a URL query (percent-encode them, or use --data-urlencode)")
        }
        return appended
    }

    /// The rules of `--config`; every issue found in them goes to stderr.
    private func loadRules(reportingTo terminal: CommandOutput) throws -> TransportSecurityConfiguration? {
        guard let config else { return nil }
        let (rules, issues) = try TransportSecurityConfiguration.load(contentsOf: config)
        for issue in issues { complain("tsec get: \(config): \(issue)", to: terminal) }
        return rules
    }

    private func makeConfiguration(reportingTo terminal: CommandOutput) throws -> SecureSessionConfiguration {
        let evaluator = try policy.makeEvaluator(
            spkiPins: try spkiPins.map(SPKIPin.init),
            leafPins: try pinnedPublicKeys.flatMap(PinnedPublicKeyArgument.pins),
            insecure: insecure
        )
        var configuration = SecureSessionConfiguration(
            trustEvaluator: evaluator,
            clientIdentity: try identity.load(),
            systemStore: try policy.makeSystemStore(replacement: cacert),
            evaluationTime: policy.evaluationTime,
            connectTimeout: TimeLimit.duration(connectTimeout),
            requestTimeout: TimeLimit.duration(maxTime),
            maximumRedirects: maxRedirs,
            httpVersions: http1Only ? .http1Only : .automatic,
            proxies: try makeProxies(),
            addressOverrides: ResolveOption.overrides(resolve),
            transportRules: try loadRules(reportingTo: terminal)
        )
        configuration.minimumTLSVersion = tls13OrLater ? .tls13 : tls12OrLater ? .tls12 : nil
        configuration.maximumTLSVersion = tlsMax == "1.2" ? .tls12 : tlsMax == "1.3" ? .tls13 : nil
        return configuration
    }

    /// For a server refused for a missing issuer whose certificates say where their issuers
    /// are published: that `--fetch-intermediates` would fetch them.
    static func fetchingHint(for decision: TrustDecision) -> String? {
        let lacking = decision.checks.compactMap(\.evaluation).first { $0.failures.contains { $0.code == .missingIssuer } }
        let urls = (lacking?.presentedChain ?? []).flatMap(\.issuerCertificateURLs)
        guard let url = urls.first(where: IntermediateFetchingEvaluator.isFetchable) else { return nil }
        return "tsec get: the server's certificates say where their issuers are published (\(url)); --fetch-intermediates fetches a missing intermediate from there"
    }

    /// What the OAuth token requests go through: the request's own configuration (policy, pins,
    /// rules, client identity, proxies), without its interceptor, cookies, HSTS file or
    /// response signature key (the key is the API's; a token endpoint does not sign with it).
    private func tokenFetching(like configuration: SecureSessionConfiguration) -> SecureSessionConfiguration {
        var tokens = configuration
        tokens.interceptor = nil
        tokens.cookieJar = nil
        tokens.hsts = nil
        tokens.responseSignatures = nil
        return tokens
    }

    /// The configuration of the session fetching OCSP responses, CRLs and issuer certificates:
    /// the same store, time, proxies, address overrides, connect timeout and log as
    /// `configuration`.
    private func sideFetching(like configuration: SecureSessionConfiguration) -> SecureSessionConfiguration {
        SecureSessionConfiguration(
            systemStore: configuration.systemStore,
            evaluationTime: configuration.evaluationTime,
            connectTimeout: configuration.connectTimeout,
            logger: configuration.logger,
            proxies: configuration.proxies,
            addressOverrides: configuration.addressOverrides
        )
    }

    /// `--proxy` for both schemes, else the environment's proxies; `--noproxy` replaces the
    /// environment's bypass list.
    private func makeProxies() throws -> HTTPProxySettings {
        var proxies = try proxy.map { text in
            let given = try HTTPProxy(url: text)
            return HTTPProxySettings(https: given, http: given)
        } ?? HTTPProxySettings.fromEnvironment()
        if !proxyPins.isEmpty {
            // Pins for a proxy without TLS would be ignored: refused instead.
            guard proxies.https?.kind == .https || proxies.http?.kind == .https else {
                throw ValidationError("--proxy-pin-sha256 pins an https:// proxy, and no https:// proxy is used (-x or the environment)")
            }
            let evaluator = AnyServerTrustEvaluator(PublicKeysTrustEvaluator(pins: try proxyPins.map(SPKIPin.init)))
            for keyPath in [\HTTPProxySettings.https, \HTTPProxySettings.http] where proxies[keyPath: keyPath]?.kind == .https {
                proxies[keyPath: keyPath]?.trustEvaluator = evaluator
            }
        }
        if let noproxy {
            proxies.bypass = noproxy.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return proxies
    }

    private func report(_ response: SecureResponse, bodyPrinted: Bool, to terminal: CommandOutput) {
        if json {
            terminal.line(JSONOutput.encode(GetReport(response, bodyIncluded: output == nil)))
            return
        }
        let showsHead = include || headOnly || dumpHeader == "-"
        if showsHead, !bodyPrinted { Self.print(ResponseHead(response), to: terminal) }
        if output == nil, !bodyPrinted { terminal.bytes(response.body) }
        // Trailer fields after the body, as curl's -i and -D show them.
        if showsHead { terminal.bytes(Data(Self.trailerLines(of: response).map { $0 + "\n" }.joined().utf8)) }
    }

    /// The trailer fields of `response`, one `name: value` line each.
    private static func trailerLines(of response: SecureResponse) -> [String] {
        response.trailers.map { "\($0.name): \($0.value)" }
    }

    /// `-i`: the status line, the header fields and an empty line. HTTP/2 has no reason phrase:
    /// its status line is the version and the code, as curl prints it (so is one whose phrase is
    /// empty).
    private static func print(_ head: ResponseHead, to terminal: CommandOutput) {
        terminal.bytes(Data(headText(head).utf8))
    }

    /// `-v`: the response's status line and header fields on standard error, each after `< `, as
    /// curl's `-v` shows them; the values of `Set-Cookie` and of fields carrying credentials
    /// hidden (``CredentialRedaction``).
    private static func tell(_ head: ResponseHead, to terminal: CommandOutput) {
        terminal.errorText(headLines(head, shown: CredentialRedaction.shown).map { "< \($0)\n" }.joined())
    }

    /// `-v`: a request head as sent, each line after `> `, as curl's `-v` shows it; the
    /// credentials of `Authorization` and `Proxy-Authorization` hidden after their scheme, cookie
    /// values, a DPoP proof and fields whose names say they hold a key, token, secret, password
    /// or session hidden (no message of this tool shows a password or a token).
    private static func tell(_ head: SentRequestHead, to terminal: CommandOutput) {
        let fields = head.headers.map { "\($0.name): " + CredentialRedaction.shown(name: $0.name, value: $0.value) }
        let lines = ["\(head.method) \(head.target) \(head.httpVersion)"] + fields + [""]
        terminal.errorText(lines.map { "> \($0)\n" }.joined())
    }

    /// The lines `-i` prints and `-D` writes, each ending in a line feed, the last one empty.
    private static func headText(_ head: ResponseHead) -> String {
        headLines(head).map { $0 + "\n" }.joined()
    }

    /// The status line, the header fields (their values as `shown` gives them) and an empty line.
    private static func headLines(_ head: ResponseHead, shown: (String, String) -> String = { $1 }) -> [String] {
        let phrase = head.httpVersion == "HTTP/2" || head.reasonPhrase.isEmpty ? "" : " \(head.reasonPhrase)"
        return ["\(head.httpVersion) \(head.statusCode)\(phrase)"] + head.headers.map { "\($0.name): \(shown($0.name, $0.value))" } + [""]
    }
}

/// The bytes of a body printed as it arrives, against `--max-filesize`.
private final class PrintedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private let limit: Int?
    private var received: Int64 = 0

    init(limit: Int?) { self.limit = limit }

    /// Counts `bytes` more; past the limit, the transfer ends as a body held in memory would.
    func add(_ bytes: Int) throws {
        try lock.withLock {
            received += Int64(bytes)
            if let limit, received > limit { throw SecureSessionError.responseTooLarge(limit: limit) }
        }
    }

    var count: Int64 { lock.withLock { received } }
}
