import Foundation
import SecureSession
import Testing
import TransportSecurity

@Suite("scratch burst")
struct ScratchBurst {
    @Test(arguments: [HTTPVersionPolicy.automatic, .http1Only])
    func burst(versions: HTTPVersionPolicy) async throws {
        var configuration = SecureSessionConfiguration(systemStore: TrustStore(try CertificateLoader.certificates(atPath: "/tmp/cd/ca.pem")), requestTimeout: .seconds(60))
        configuration.httpVersions = versions
        configuration.validation = .none
        let session = SecureSession(configuration: configuration)
        let base = ProcessInfo.processInfo.environment["SCRATCH_BASE"]!
        let results = await withTaskGroup(of: String.self) { group in
            for n in 0..<400 {
                group.addTask {
                    do {
                        if n % 20 == 0 {
                            let r = try await session.get(URL(string: "\(base)/big.bin")!)
                            return r.body.count == 10_000_000 ? "big ok" : "big short \(r.body.count)"
                        }
                        if n % 4 == 1 {
                            let r = try await session.post(URL(string: "\(base)/index.html?n=\(n)")!, body: Data(count: 150_000))
                            return "post \(r.statusCode) \(r.httpVersion)"
                        }
                        let r = try await session.get(URL(string: "\(base)/index.html?n=\(n)")!)
                        return "get \(r.statusCode) \(r.httpVersion) \(r.text == "hi\n")"
                    } catch { return "FAIL \(error)" }
                }
            }
            return await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        print("RESULTS", versions, results)
        #expect(!results.keys.contains { $0.hasPrefix("FAIL") || $0.hasPrefix("big short") })
        await session.shutdown()
    }
}
