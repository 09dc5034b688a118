import Foundation

/// `nghttpd` (Debian's nghttp2-server) on 127.0.0.1: an independent HTTP/2 peer over TLS,
/// serving the files of a directory. It speaks HTTP/2 only.
public final class NGHTTPDServer: @unchecked Sendable {
    private let server: ServerProcess

    public var port: Int { server.port }

    /// Starts the server and waits until it accepts connections.
    /// - Parameters:
    ///   - certificateFile: The PEM chain (leaf first).
    ///   - keyFile: The PEM key of the leaf.
    ///   - documentRoot: The directory whose files it serves.
    ///   - trailers: Trailer fields (`name: value`) sent after every response body.
    public init(certificateFile: String, keyFile: String, documentRoot: String, trailers: [String] = []) throws {
        // Debian installs it in /usr/sbin, which a user's PATH may lack.
        let program = FileManager.default.isExecutableFile(atPath: "/usr/sbin/nghttpd") ? "/usr/sbin/nghttpd" : "nghttpd"
        server = try ServerProcess(program) { port in
            ["--address=127.0.0.1", "--htdocs=\(documentRoot)", "--echo-upload"] + trailers.map { "--trailer=\($0)" } + ["\(port)", keyFile, certificateFile]
        }
    }

    /// Stops the server.
    public func stop() { server.stop() }
}
