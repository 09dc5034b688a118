import ArgumentParser

/// The credentials `tsec get` sends: basic or bearer (OAuth has its own options).
struct GetAuthenticationOptions: ParsableArguments {
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
}
