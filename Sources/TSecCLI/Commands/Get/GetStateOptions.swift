import ArgumentParser

/// What `tsec get` keeps between requests and runs: cookies and known HSTS hosts.
struct GetStateOptions: ParsableArguments {
    @Option(name: [.customShort("b"), .long], help: "Cookies to send: 'NAME=VALUE; NAME2=VALUE2' as they are, or a cookie file (curl's Netscape format; a missing file is an empty jar) whose cookies go with the requests they apply to, redirects included.")
    var cookie: String?

    @Option(name: [.customShort("c"), .customLong("cookie-jar")], help: "Keep the cookies servers set (redirects included) and write them all to this file at the end, in curl's cookie-file format, readable by its owner only.")
    var cookieJar: String?

    @Option(help: "Keep known HSTS hosts in this file, curl's --hsts cache (a missing file starts empty; '' keeps them for this run only): http:// URLs of hosts that sent Strict-Transport-Security over trusted https are sent as https://, redirects included; the file is written back at the end, readable by its owner only.")
    var hsts: String?
}
