import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import SecureSession

@Suite("StreamResponseBridge: an HTTP/2 response handed to the request's task")
struct StreamResponseBridgeTests {
    @Test("the stream stops reading at the high watermark and reads again once the task is down to the low one; parts keep their order")
    func backpressure() async throws {
        let bridge = StreamResponseBridge()
        let resumed = NIOLockedValueBox(0)
        bridge.onResume { resumed.withLockedValue { $0 += 1 } }
        let part = HTTPClientResponsePart.body(ByteBuffer(string: "x"))
        var accepted: [Bool] = []
        for _ in 0..<StreamResponseBridge.highWatermark { accepted.append(bridge.deliver(part)) }
        #expect(accepted.dropLast().allSatisfy { $0 })
        #expect(accepted.last == false, "full: the stream must stop reading")
        var taken = 0
        while StreamResponseBridge.highWatermark - taken > StreamResponseBridge.lowWatermark {
            _ = try await bridge.next()
            taken += 1
            let expected = StreamResponseBridge.highWatermark - taken <= StreamResponseBridge.lowWatermark ? 1 : 0
            #expect(resumed.withLockedValue { $0 } == expected)
        }
        #expect(bridge.deliver(.end(nil)))
        bridge.finish(nil)
        var rest = 0
        while let next = try await bridge.next() {
            rest += 1
            if rest == StreamResponseBridge.lowWatermark + 1 {
                guard case .end = next else { Issue.record("the end came out of order: \(next)"); return }
            }
        }
        #expect(rest == StreamResponseBridge.lowWatermark + 1)
        #expect(resumed.withLockedValue { $0 } == 1)
    }

    @Test("parts that were already on their way when the stream paused keep it paused, and it still reads again once the task is down to the low watermark")
    func partsAfterThePause() async throws {
        let bridge = StreamResponseBridge()
        let resumed = NIOLockedValueBox(0)
        bridge.onResume { resumed.withLockedValue { $0 += 1 } }
        let part = HTTPClientResponsePart.body(ByteBuffer(string: "x"))
        for _ in 0..<StreamResponseBridge.highWatermark { _ = bridge.deliver(part) }
        // The task takes two; a part of the same read arrives meanwhile: the stream stays paused
        // (it was wrongly reported able to read, and the pause then never ended).
        _ = try await bridge.next()
        _ = try await bridge.next()
        #expect(!bridge.deliver(part))
        var waiting = StreamResponseBridge.highWatermark - 1
        while waiting > StreamResponseBridge.lowWatermark {
            _ = try await bridge.next()
            waiting -= 1
        }
        #expect(resumed.withLockedValue { $0 } == 1, "the stream must be told to read again")
    }

    @Test("the stream's handler holds the channel's reads while the bridge is full and reads again, on its event loop, once the task is down to the low watermark")
    func handlerHoldsAndResumesReads() async throws {
        /// Counts the reads that pass it towards the channel.
        final class ReadCounter: ChannelOutboundHandler, @unchecked Sendable {
            typealias OutboundIn = Never
            var reads = 0
            func read(context: ChannelHandlerContext) {
                reads += 1
                context.read()
            }
        }
        let bridge = StreamResponseBridge()
        let counter = ReadCounter()
        let channel = try await NIOAsyncTestingChannel { channel in
            try channel.pipeline.syncOperations.addHandlers([counter, StreamExchangeHandler(request: [], bridge: bridge)])
        }
        let reads = { try await channel.testingEventLoop.submit { counter.reads }.get() }
        channel.read()
        #expect(try await reads() == 1)
        for _ in 0..<StreamResponseBridge.highWatermark {
            try await channel.writeInbound(HTTPClientResponsePart.body(ByteBuffer(string: "x")))
        }
        channel.read()
        #expect(try await reads() == 1, "full: the read is held")
        for _ in 0..<(StreamResponseBridge.highWatermark - StreamResponseBridge.lowWatermark) {
            _ = try await bridge.next()
        }
        await channel.testingEventLoop.run()
        #expect(try await reads() == 2, "the held read goes on")
        channel.read()
        #expect(try await reads() == 3, "and reads are no longer held")
        try await channel.writeInbound(HTTPClientResponsePart.end(nil))
        var rest = 0
        while try await bridge.next() != nil { rest += 1 }
        #expect(rest == StreamResponseBridge.lowWatermark + 1)
        _ = try await channel.finish()
    }

    @Test(
        "a stream's handler and its bridge are freed once the stream is over, whether it ended before or after the handler went in (they held each other through the way to resume reads: about 1 KB kept per HTTP/2 request)",
        arguments: [false, true]
    )
    func freedWhenOver(endedFirst: Bool) async throws {
        weak var weakBridge: StreamResponseBridge?
        weak var weakHandler: StreamExchangeHandler?
        do {
            let bridge = StreamResponseBridge()
            // A request that gave up before its stream opened ends the bridge first.
            if endedFirst { bridge.finish(CancellationError()) }
            let handler = StreamExchangeHandler(request: [], bridge: bridge)
            weakBridge = bridge
            weakHandler = handler
            let channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandler(handler)
            if !endedFirst {
                try channel.writeInbound(HTTPClientResponsePart.end(nil))
                #expect(try await bridge.next() == .end(nil))
                #expect(try await bridge.next() == nil)
            }
            _ = try channel.finish()
        }
        #expect(weakHandler == nil)
        #expect(weakBridge == nil)
    }

    @Test("a task waiting for a part gets it as it arrives; a failure ends the wait; later endings change nothing")
    func waitingAndEndings() async throws {
        let bridge = StreamResponseBridge()
        async let first = bridge.next()
        try await Task.sleep(for: .milliseconds(50))
        #expect(bridge.deliver(.head(HTTPResponseHead(version: .http2, status: .ok))))
        guard case .head(let head)? = try await first else {
            Issue.record("no head")
            return
        }
        #expect(head.status == .ok)
        let second = Task { () -> (any Error)? in
            do {
                _ = try await bridge.next()
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        bridge.finish(SecureSessionError.connectionFailed("reset"))
        bridge.finish(nil)
        #expect(!bridge.deliver(.end(nil)), "nothing is taken after the ending")
        #expect(await second.value is SecureSessionError)
        await #expect(throws: SecureSessionError.self) { _ = try await bridge.next() }
    }
}
