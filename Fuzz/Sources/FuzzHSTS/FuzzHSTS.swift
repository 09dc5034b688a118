import Foundation
import FuzzDriver
import SecureSession

private let now = Date(timeIntervalSince1970: 1_900_000_000)

/// `Strict-Transport-Security` field values and hosts, one per line: every value the parser
/// takes has a non-negative max-age and reads back the same when written plainly; every host
/// the store keeps or is asked about gives upgrades that change the scheme alone, and never an
/// address.
func fuzzHSTS(_ input: UnsafeRawBufferPointer) {
    let lines = String(decoding: input, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let store = HSTSStore()
    for (index, line) in lines.enumerated() {
        if let policy = StrictTransportSecurity(fieldValue: line) {
            precondition(policy.maximumAge >= 0, "a negative max-age")
            let plain = "max-age=\(policy.maximumAge)" + (policy.includesSubdomains ? "; includeSubDomains" : "")
            precondition(StrictTransportSecurity(fieldValue: plain) == policy, "a policy that does not read back")
        }
        store.store(HSTSEntry(host: line, includesSubdomains: index % 2 == 0, expires: now.addingTimeInterval(Double(index + 1))))
        guard let url = URL(string: "http://\(line)/path?q=1"), let host = url.host else { continue }
        if let upgraded = store.upgraded(url, at: now) {
            precondition(upgraded.scheme == "https", "an upgrade that is not to https")
            precondition(
                upgraded.host == host && upgraded.path == url.path && upgraded.query == url.query && upgraded.user == url.user
                    && (upgraded.port == url.port || (url.port == 80 && upgraded.port == nil)),
                "an upgrade that changed more than the scheme (and port 80)"
            )
        }
    }
    for entry in store.entries(at: now) {
        precondition(store.isKnownHost(entry.host, at: now), "a stored host that is not known")
        precondition(!isAddress(entry.host), "an address kept")
    }
}

/// Whether `text` is an IPv4 or IPv6 address, as the C library reads one.
private func isAddress(_ text: String) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 16)
    return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
}

@main
enum FuzzHSTSMain {
    static func main() { runFuzzer(fuzzHSTS) }
}
