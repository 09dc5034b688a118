import FuzzDriver
import Foundation
import TransportSecurity

/// Property lists (XML and binary) and JSON: a configuration that loads can be resolved for
/// hosts and linted without trapping, every exception domain named by a DNS name is the rule of
/// that very name, and every pin set's expiration date is a time.
private let publicSuffixes = try? PublicSuffixList()

func fuzzConfiguration(_ input: UnsafeRawBufferPointer) {
    let data = Data(input)
    guard let (configuration, _) = try? TransportSecurityConfiguration.load(from: data, source: "fuzz") else { return }
    for host in ["example.com", "api.example.com", "localhost", "127.0.0.1", "::1", "a.b.c.example.co.uk"] {
        _ = configuration.rule(forHost: host)
    }
    for exception in configuration.exceptionDomains {
        guard case .dnsName(let name) = exception.key else { continue }
        precondition(configuration.rule(forHost: name).origin == .exception(exception.key), "an exception key is not the rule of its own name")
    }
    for set in configuration.pinSets {
        // A date that is no time would make the set read as expired (its pins not enforced).
        precondition(set.expirationDate?.timeIntervalSinceReferenceDate.isFinite ?? true, "a pin set expires at no time")
    }
    _ = configuration.lint(publicSuffixes: publicSuffixes)
}

@main
enum FuzzConfigurationMain {
    static func main() { runFuzzer(fuzzConfiguration) }
}
