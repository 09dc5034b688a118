import ArgumentParser

/// What `tsec get` sends: method, header fields, body, compression, idempotency key.
struct GetRequestOptions: ParsableArguments {
    @Option(name: [.customShort("X"), .customLong("request")], help: "The request method.")
    var method: String = "GET"

    @Option(name: [.customShort("H"), .long], help: "A request header, 'Name: value'. Repeatable.")
    var header: [String] = []

    @Option(name: [.customShort("A"), .customLong("user-agent")], help: "The User-Agent field to send (curl's -A); TransportSecurity/1 unless given.")
    var userAgent: String?

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

    @Flag(help: "Ask for a compressed response (Accept-Encoding: deflate, gzip) and print it decoded, as curl's --compressed.")
    var compressed = false

    @Flag(help: "Send an Idempotency-Key field with a new random key (a UUID, as a structured string: Idempotency-Key: \"…\") unless a -H gives one, so that a server that honours it processes the request once however often it comes: --retry then sends a POST or PATCH again after it may have reached the server, and after a 409. When the request fails with its fate unknown, the key is printed, to send it again with -H.")
    var idempotencyKey = false
}
