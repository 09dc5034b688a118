import NIOHTTP1

/// When a request with a large body asks the server first (`Expect: 100-continue`, RFC 9110
/// §10.1.1): the head goes alone, and the body follows once the server says `100 Continue`, or
/// once ``timeout`` passes without a word (a server that ignores the field). A server that
/// answers at once instead (a 401 challenge, a 413, a redirect) never receives a body it would
/// refuse: an upload answered by a Digest challenge crosses the network once, not twice.
/// HTTP/1.1 only; over HTTP/2 the body follows the head at once. curl does the same for bodies
/// over 1 MiB.
public struct ExpectContinue: Sendable, Hashable {
    /// Bodies at least this long, and those whose length is not known, wait for the server.
    public var minimumBodySize: Int64
    /// How long to wait for the server's word before sending the body anyway.
    public var timeout: Duration

    /// Waits for bodies of `minimumBodySize` bytes or more (or of unknown length), at most `timeout`.
    public init(minimumBodySize: Int64 = 1 << 20, timeout: Duration = .seconds(1)) {
        self.minimumBodySize = minimumBodySize
        self.timeout = timeout
    }

    /// curl's: bodies of 1 MiB or more, at most one second.
    public static let curl = ExpectContinue()

    /// Whether a body of `length` bytes (`nil`: not known) waits.
    func applies(toBodyOf length: Int64?) -> Bool {
        length.map { $0 >= minimumBodySize } ?? true
    }

    /// `head` as an HTTP/1.1 connection sends it with `body`: without any `Expect` once a server
    /// refused the expectation (`mayWaitToContinue` false), with `Expect: 100-continue` when
    /// `expectContinue` asks it of this body (a caller's own is kept either way otherwise).
    static func head(_ head: HTTPRequestHead, body: RequestBodySource?, mayWaitToContinue: Bool, expectContinue: ExpectContinue?) -> HTTPRequestHead {
        var head = head
        if !mayWaitToContinue {
            head.headers.remove(name: "Expect")
        } else if let body, let expectContinue, expectContinue.applies(toBodyOf: body.length) {
            head.headers.replaceOrAdd(name: "Expect", value: "100-continue")
        }
        return head
    }
}
