import ArgumentParser

/// Where and how `tsec get` writes the response, and when it fails on one.
struct GetOutputOptions: ParsableArguments {
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

    @Flag(name: [.customShort("i"), .long], help: "Print the status line and headers before the body.")
    var include = false

    @Flag(name: [.customShort("I"), .customLong("head")], help: "Send a HEAD request and print the status line and headers (curl's -I).")
    var headOnly = false

    @Flag(name: [.customShort("f"), .customLong("fail")], help: "An HTTP status of 400 or more prints no body (nor writes --output) and exits 22, as curl's -f.")
    var fail = false

    @Flag(help: "An HTTP status of 400 or more exits 22 after the body is printed or written, as curl's --fail-with-body. Not with -f.")
    var failWithBody = false

    @Flag(name: [.customShort("s"), .long], help: "Print no error message (curl's -s); the exit status still tells what happened.")
    var silent = false

    @Flag(name: [.customShort("S"), .customLong("show-error")], help: "With -s, print error messages after all (curl's -sS).")
    var showError = false

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
}
