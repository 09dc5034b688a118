import Foundation
import NIOCore
import NIOPosix
import PKIBuilder

/// Every server of a `TrustLab` running on 127.0.0.1, each presenting its chain
/// and claiming to be the lab's host.
public final class TrustLabServers: Sendable {
    /// The lab whose chains are presented.
    public let lab: TrustLab
    /// The port of each server.
    public let ports: [TrustLab.Server: Int]
    private let servers: [LabHTTPSServer]

    private init(lab: TrustLab, ports: [TrustLab.Server: Int], servers: [LabHTTPSServer]) {
        self.lab = lab
        self.ports = ports
        self.servers = servers
    }

    /// Starts one server per `TrustLab.Server`.
    public static func start(_ lab: TrustLab, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> TrustLabServers {
        var ports: [TrustLab.Server: Int] = [:]
        var servers: [LabHTTPSServer] = []
        do {
            for server in TrustLab.Server.allCases {
                let running = try await LabHTTPSServer.start(
                    chain: lab.chain(server),
                    page: "hello from the \(server.label) server of the TransportSecurity lab\n",
                    group: group
                )
                servers.append(running)
                ports[server] = running.port
            }
        } catch {
            for running in servers { await running.stop() }
            throw error
        }
        return TrustLabServers(lab: lab, ports: ports, servers: servers)
    }

    /// The URL of `server`, with the lab's host name (connect to 127.0.0.1 for it).
    public func url(_ server: TrustLab.Server) -> URL {
        URL(string: "https://\(lab.host):\(ports[server] ?? 0)/")!
    }

    /// Stops every server.
    public func stop() async {
        for server in servers { await server.stop() }
    }
}
