import ArgumentParser

/// How `tsec get` connects: HTTP and TLS versions, time limits, redirects, proxies, addresses.
struct GetConnectionOptions: ParsableArguments {
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

    @Flag(name: [.customShort("L"), .customLong("location")], help: "Accepted for curl's scripts: redirects are followed anyway, up to --max-redirs.")
    var location = false

    @Option(help: ArgumentHelp("The most redirects followed for the request (curl's --max-redirs), 0 to 100; one more fails the request, exit 3.", valueName: "N"))
    var maxRedirs: Int = 10

    @Option(name: [.customShort("x"), .long], help: "Go through this proxy: HTTP, [http://][user:password@]host[:port] (https:// URLs through a CONNECT tunnel), HTTPS, https://[user:password@]host[:port] (the same over TLS with the proxy, port 443 by default), or SOCKS5, socks5://[user:password@]host[:port] (names resolved here) or socks5h://[user:password@]host[:port] (names resolved by the proxy). Without it, https_proxy/HTTPS_PROXY, http_proxy, ALL_PROXY and NO_PROXY are read, as curl does.")
    var proxy: String?

    @Option(name: .customLong("proxy-pin-sha256"), help: "An SPKI pin (sha256/<base64>) some certificate of an https:// proxy's chain must carry, besides a valid chain to the system roots for the proxy's name (curl's --proxy-pinnedpubkey). Repeatable.")
    var proxyPins: [String] = []

    @Option(help: "Hosts that go direct, comma separated ('*' for every host), as NO_PROXY writes them.")
    var noproxy: String?

    @Option(help: "Connect to ADDRESS for HOST:PORT instead of asking DNS (curl's HOST:PORT:ADDRESS); the host name is still sent and verified. Repeatable.")
    var resolve: [String] = []
}
