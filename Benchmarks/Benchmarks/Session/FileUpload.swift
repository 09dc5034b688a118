import AsyncHTTPClient
import Benchmark
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import SecureSession

/// The file every upload benchmark sends: 32 MiB of bytes that do not compress, made once.
let uploadFile: String = {
    let path = NSTemporaryDirectory() + "tsec-bench-upload.bin"
    var generator = SystemRandomNumberGenerator()
    let bytes = Data((0..<(32 << 20) / 8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } })
    _ = FileManager.default.createFile(atPath: path, contents: bytes)
    return path
}()

/// A file's bytes in parts of 64 KiB, read with `read(2)` as they are asked for: AsyncHTTPClient's
/// streamed body reads the file as SecureSession's `bodyFile` does.
struct FileParts: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String

    struct AsyncIterator: AsyncIteratorProtocol {
        let descriptor: Int32

        mutating func next() async throws -> ByteBuffer? {
            var part = ByteBufferAllocator().buffer(capacity: 64 * 1024)
            let count = part.writeWithUnsafeMutableBytes(minimumWritableBytes: 64 * 1024) { buffer in
                Swift.max(read(descriptor, buffer.baseAddress, 64 * 1024), 0)
            }
            if count == 0 {
                close(descriptor)
                return nil
            }
            return part
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(descriptor: open(path, O_RDONLY)) }
}

/// Runs `upload` while sampling the process's resident memory every 2 ms, and answers how far it
/// rose above where it was when the upload began.
func residentGrowth(during upload: () async throws -> Void) async throws -> Int {
    let start = residentBytes()
    let peak = NIOLockedValueBox(start)
    let sampler = Task {
        while !Task.isCancelled {
            let now = residentBytes()
            peak.withLockedValue { $0 = max($0, now) }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }
    try await upload()
    sampler.cancel()
    _ = await sampler.value
    return max(peak.withLockedValue { $0 } - start, 0)
}

/// Uploads of a 32 MiB file over HTTP/1.1 and TLS on a warm keep-alive connection, to the lab
/// server on 127.0.0.1 (which reads the body as fast as it comes and discards it): the time, and
/// how far resident memory rose while the file was sent.
func fileUploadBenchmarks(scenario: SessionScenario, port: @escaping @Sendable () async throws -> Int) {
    let growth = BenchmarkMetric.custom("resident growth during the upload (bytes)", polarity: .prefersSmaller, useScalingFactor: false)
    func configuration(setup: @escaping @Sendable () async throws -> Void, teardown: @escaping @Sendable () async throws -> Void) -> Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, growth],
            warmupIterations: 2,
            maxDuration: .seconds(10),
            maxIterations: 20,
            setup: setup,
            teardown: teardown
        )
    }
    let length = Int64((try? FileManager.default.attributesOfItem(atPath: uploadFile)[.size] as? Int) ?? 0)

    let ahc = NIOLockedValueBox<HTTPClient?>(nil)
    Benchmark(
        "32 MiB file upload, AsyncHTTPClient 1.37",
        configuration: configuration(
            setup: {
                let client = scenario.asyncHTTPClient(connections: 1)
                _ = try await get(client, scenario.url(port: try await port()))
                ahc.withLockedValue { $0 = client }
            },
            teardown: { try await ahc.withLockedValue { $0 }?.shutdown() }
        )
    ) { benchmark in
        guard let client = ahc.withLockedValue({ $0 }) else { return }
        let url = scenario.url(port: try await port())
        let rise = try await residentGrowth {
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .POST
            request.body = .stream(FileParts(path: uploadFile), length: .known(length))
            let response = try await client.execute(request, timeout: .seconds(60))
            _ = try await response.body.collect(upTo: 1 << 20)
            precondition(response.status == .ok)
        }
        benchmark.measurement(growth, rise)
    }

    let secure = NIOLockedValueBox<SecureSession?>(nil)
    Benchmark(
        "32 MiB file upload, SecureSession",
        configuration: configuration(
            setup: {
                let session = scenario.session(connections: 1)
                _ = try await session.get(scenario.url(port: try await port()))
                secure.withLockedValue { $0 = session }
            },
            teardown: { await secure.withLockedValue { $0 }?.shutdown() }
        )
    ) { benchmark in
        guard let session = secure.withLockedValue({ $0 }) else { return }
        let url = scenario.url(port: try await port())
        let rise = try await residentGrowth {
            let response = try await session.send(.upload(.post, url: url, fromFile: uploadFile))
            precondition(response.statusCode == 200)
        }
        benchmark.measurement(growth, rise)
    }
}
