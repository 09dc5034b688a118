import Crypto
import Foundation

/// lighttpd (Debian's package) on 127.0.0.1 with `mod_auth`: an independent HTTP Digest (RFC
/// 7616, `qop=auth`, MD5 or SHA-256) or Basic (RFC 7617) peer guarding `/page.txt` for one user.
/// Its challenges say `charset="UTF-8"`.
public final class LighttpdAuthServer: @unchecked Sendable {
    /// What `/page.txt` holds.
    public static let page = "behind authentication\n"

    private let server: ServerProcess
    private let folder: String

    public var port: Int { server.port }

    /// Starts lighttpd and waits until it accepts connections.
    /// - Parameters:
    ///   - algorithm: `MD5` or `SHA-256`, the algorithm lighttpd asks for (and the hash of its
    ///     user file, which Basic reads too).
    ///   - method: `digest` or `basic`.
    ///   - userhash: Whether lighttpd offers RFC 7616's hashed user names (`userhash=true`).
    public init(user: String, password: String, realm: String, algorithm: String, method: String = "digest", userhash: Bool = false) throws {
        let folder = NSTemporaryDirectory() + "lighttpd-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/www", withIntermediateDirectories: true)
        self.folder = folder
        try Self.page.write(toFile: folder + "/www/page.txt", atomically: true, encoding: .utf8)
        // htdigest lines: user:realm:H(user:realm:password), the hash's length telling its algorithm.
        let secret = Data("\(user):\(realm):\(password)".utf8)
        let hash = algorithm == "SHA-256" ? SHA256.hash(data: secret).hexString : Insecure.MD5.hash(data: secret).hexString
        try "\(user):\(realm):\(hash)\n".write(toFile: folder + "/htdigest", atomically: true, encoding: .utf8)
        server = try ServerProcess("/usr/sbin/lighttpd") { port in
            let settings = """
                server.modules = ("mod_auth", "mod_authn_file")
                server.document-root = "\(folder)/www"
                server.bind = "127.0.0.1"
                server.port = \(port)
                server.errorlog = "\(folder)/error.log"
                auth.backend = "htdigest"
                auth.backend.htdigest.userfile = "\(folder)/htdigest"
                auth.require = ( "/" => ( "method" => "\(method)", "realm" => "\(realm)", "require" => "valid-user", "algorithm" => "\(algorithm)"\(userhash ? #", "userhash" => "enable""# : "") ) )

                """
            let file = "\(folder)/lighttpd-\(port).conf"
            _ = FileManager.default.createFile(atPath: file, contents: Data(settings.utf8))
            return ["-D", "-f", file]
        }
    }

    /// The URL of the guarded page.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)/page.txt")! }

    /// Stops lighttpd.
    public func stop() {
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}

extension Digest {
    fileprivate var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
