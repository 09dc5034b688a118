import NIOCore
import NIOHTTP1
import TransportSecurity

/// A response read by ``HTTPConnection/execute(head:replayable:body:mayWaitToContinue:closer:sink:)``: its head, its
/// trailer fields, and whether the connection can take another request.
struct ExchangedResponse: Sendable {
    let head: HTTPResponseHead
    let trailers: HTTPHeaders?
    let reusable: Bool

    init(_ read: ReadResponse, reusable: Bool) {
        head = read.head
        trailers = read.trailers
        self.reusable = reusable
    }
}
