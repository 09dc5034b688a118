import ArgumentParser

/// The server-trust options of `tsec get` beside the policy's: curl's names, SPKI pins, fetched intermediates, transport rules.
struct GetTrustOptions: ParsableArguments {
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

    @Flag(help: "Complete a chain the server sent without its intermediate certificates by fetching them from the caIssuers URLs of its certificates (authority information access), as Apple's SecTrust does; each fetched certificate is checked like a presented one. The URLs come from the server: a hostile one can make tsec GET a URL of its choosing.")
    var fetchIntermediates = false

    @Option(help: "Transport rules to apply: an Info.plist (XML or binary) with NSAppTransportSecurity, or JSON with the same keys.")
    var config: String?
}
