import Foundation
import PKIBuilder

/// Two client certificates from one client CA, and a folder of their own to write their files
/// in as a renewal writes them: for the tests of client identities (renewed files, external
/// keys).
public struct ClientCertificateLab: Sendable {
    public let lab: TrustLab
    /// The CA the servers accept client certificates from.
    public let clientCA: IssuedCertificate
    /// The certificate presented first.
    public let alice: IssuedCertificate
    /// The certificate a renewal installs.
    public let bob: IssuedCertificate
    /// A new, empty folder.
    public let directory: String

    public init() throws {
        lab = try TrustLab()
        clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        alice = try lab.pki.issue(.client("alice"), by: clientCA)
        bob = try lab.pki.issue(.client("bob"), by: clientCA)
        directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("tsec-client-lab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// The path of `name` in the folder.
    public func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    /// Writes `bytes` as `name` through a temporary file renamed over it, as a renewal does,
    /// and answers its path.
    @discardableResult
    public func replace(_ name: String, with bytes: some DataProtocol) throws -> String {
        let temporary = path(".\(name).\(UUID().uuidString)")
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path(name)) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path(name)])
        }
        return path(name)
    }
}
