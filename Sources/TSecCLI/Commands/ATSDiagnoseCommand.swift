import ArgumentParser
import Foundation
import Logging
import SecureSession
import TransportSecurity

/// `tsec ats-diagnose URL`: Apple's `nscurl --ats-diagnostics` for this library's transport
/// rules. Requests the URL under a series of rules, from the default to arbitrary loads, prints
/// PASS or FAIL for each, and names the narrowest exception that works.
public struct ATSDiagnoseCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "ats-diagnose",
        abstract: "Find which transport-rule exception a server needs, like nscurl --ats-diagnostics.",
        discussion: """
            Tries the default rules (or --config's), arbitrary loads, each minimum TLS version, \
            forward secrecy off, and insecure loads, for the URL's host. Exit status: 0 the \
            default rules pass, 1 only an exception passes, 2 usage or unreadable input, 3 nothing \
            passes (the server is unreachable, its certificate is not trusted at all, or the \
            configuration's pins refuse it).
            """
    )

    @Argument(help: "The URL (https:// or http://).")
    var url: String

    @Option(help: "A configuration whose rules are the starting point (Info.plist or JSON).")
    var config: String?

    @Flag(help: "Print the rules of each attempt and the error it met.")
    var verbose = false

    @Flag(help: "Print the attempts as JSON.")
    var json = false

    @Option(help: "A PEM bundle that replaces the system trust store.")
    var systemRoots: String?

    @Option(help: "Connect to ADDRESS for HOST:PORT instead of asking DNS (HOST:PORT:ADDRESS). Repeatable.")
    var resolve: [String] = []

    @Option(help: "The most seconds each attempt may take.")
    var maxTime: Double = 10

    /// Creates the command (for ArgumentParser).
    public init() {}

    /// Checks the URL and options.
    public func validate() throws {
        guard let target = URL(string: url), target.host != nil, ["https", "http"].contains(target.scheme?.lowercased() ?? "") else {
            throw ValidationError("'\(url)' is not an http(s) URL with a host")
        }
        // The host arrives percent-decoded: every attempt would fail alike, for no rule's reason.
        if let host = target.host, let problem = ServerHost(host).nameProblem {
            throw ValidationError("'\(url)': its host \(problem)")
        }
        try TimeLimit.validate(maxTime)
        try ResolveOption.validate(resolve)
    }

    /// One attempt: a label, the rules it adds, and what happened.
    struct Attempt: Encodable {
        let name: String
        let rules: String
        let result: String
        let error: String?
        /// How narrow the exception is: the smaller, the less it relaxes (`nil`: no exception).
        let width: Int?
    }

    struct Report: Encodable {
        let url: String
        let attempts: [Attempt]
        let narrowest: String?
    }

    /// Requests the URL under each rule of the series, from the default to arbitrary loads; returns
    /// 0 when the default rules pass, 1 when only an exception does, 3 when nothing passes, 2 on bad input.
    public func execute(output: CommandOutput) async -> Int32 {
        guard let target = URL(string: url), let host = target.host else { return ExitStatus.usageOrInput }
        let base: [String: Any]
        let store: TrustStore?
        do {
            base = try config.map { try readDictionary($0, reportingTo: output) } ?? [:]
            store = try systemRoots.map { TrustStore(try CertificateLoader.certificates(atPath: $0), origin: $0) }
        } catch {
            output.error("tsec ats-diagnose: \(error)")
            return ExitStatus.usageOrInput
        }
        var attempts: [Attempt] = []
        let variants = Self.variants(host: host, base: base)
        let progress = ProgressLine(output: output)
        for (index, variant) in variants.enumerated() {
            progress.show("tsec ats-diagnose: \(index + 1)/\(variants.count) \(variant.name)", force: true)
            let (error, rulesText) = await attempt(target, rules: variant.rules, store: store)
            attempts.append(Attempt(name: variant.name, rules: rulesText, result: error == nil ? "PASS" : "FAIL", error: error, width: variant.width))
        }
        progress.finish()
        let defaultPasses = attempts.first?.result == "PASS"
        let narrowest = attempts.filter { $0.result == "PASS" && $0.width != nil }.min { $0.width! < $1.width! }
        let advice: String? = defaultPasses ? nil : narrowest.map { "\($0.name): \($0.rules)" }
        if json {
            output.line(JSONOutput.encode(Report(url: url, attempts: attempts, narrowest: advice)))
        } else {
            print(attempts, advice: advice, defaultPasses: defaultPasses, to: output)
        }
        if defaultPasses { return ExitStatus.success }
        return narrowest == nil ? ExitStatus.connectionFailure : ExitStatus.rejected
    }

    private func print(_ attempts: [Attempt], advice: String?, defaultPasses: Bool, to output: CommandOutput) {
        output.line("Starting ATS diagnostics for \(url)")
        output.line("Each attempt requests the URL under other transport rules; it passes when a response arrives.")
        output.line(String(repeating: "=", count: 80))
        for attempt in attempts {
            output.line("---")
            output.line(attempt.name)
            if verbose { output.line("Rules: \(attempt.rules)") }
            output.line("Result : \(attempt.result)")
            if verbose, let error = attempt.error { output.line("Error : \(error)") }
        }
        output.line("---")
        output.line(String(repeating: "=", count: 80))
        if defaultPasses {
            output.line("The default rules pass: no exception is needed.")
        } else if let advice {
            output.line("Narrowest exception that works: \(advice)")
        } else {
            output.line("Nothing passes, not even arbitrary loads: the server cannot be reached, its certificate is not trusted, or pins that every attempt keeps (NSPinnedDomains, TSKPinnedDomains) refuse it.")
        }
    }

    /// The attempts, in nscurl's order, each with the width of what it relaxes.
    static func variants(host: String, base: [String: Any]) -> [(name: String, rules: [String: Any], width: Int?)] {
        func exception(_ keys: [String: Any]) -> [String: Any] {
            var rules = base
            var domains = rules["NSExceptionDomains"] as? [String: Any] ?? [:]
            domains[host] = keys
            rules["NSExceptionDomains"] = domains
            return rules
        }
        let versions = ["TLSv1.3", "TLSv1.2", "TLSv1.1", "TLSv1.0"]
        // Width: what the exception gives up, from a lower TLS minimum to cleartext.
        func width(_ version: String, pfsOff: Bool = false, insecure: Bool = false) -> Int {
            (versions.firstIndex(of: version) ?? 1) + (pfsOff ? 10 : 0) + (insecure ? 100 : 0)
        }
        var variants: [(String, [String: Any], Int?)] = [("Default ATS secure connection", base, nil)]
        var arbitrary = base
        arbitrary["NSAllowsArbitraryLoads"] = true
        for narrower in ["NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent", "NSAllowsLocalNetworking"] { arbitrary[narrower] = nil }
        var domains = arbitrary["NSExceptionDomains"] as? [String: Any] ?? [:]
        domains[host] = nil
        arbitrary["NSExceptionDomains"] = domains
        variants.append(("Allowing arbitrary loads", arbitrary, 1_000))
        for version in versions {
            variants.append(("TLS exception for \(host): \(version)", exception(["NSExceptionMinimumTLSVersion": version]), width(version)))
        }
        variants.append(("Insecure HTTP exception for \(host): cleartext allowed", exception(["NSExceptionAllowsInsecureHTTPLoads": true]), width("TLSv1.2", insecure: true)))
        variants.append(("PFS exception for \(host): forward secrecy disabled", exception(["NSExceptionRequiresForwardSecrecy": false]), width("TLSv1.2", pfsOff: true)))
        variants.append(("PFS exception for \(host): forward secrecy disabled and insecure HTTP allowed",
                         exception(["NSExceptionRequiresForwardSecrecy": false, "NSExceptionAllowsInsecureHTTPLoads": true]), width("TLSv1.2", pfsOff: true, insecure: true)))
        for version in versions {
            variants.append(("TLS exception for \(host): \(version) with forward secrecy disabled",
                             exception(["NSExceptionMinimumTLSVersion": version, "NSExceptionRequiresForwardSecrecy": false]), width(version, pfsOff: true)))
        }
        for version in versions {
            variants.append(("TLS exception for \(host): \(version) with forward secrecy disabled and insecure HTTP allowed",
                             exception(["NSExceptionMinimumTLSVersion": version, "NSExceptionRequiresForwardSecrecy": false, "NSExceptionAllowsInsecureHTTPLoads": true]),
                             width(version, pfsOff: true, insecure: true)))
        }
        return variants
    }

    /// Requests `target` under `rules`: `nil` when a response arrived, else the error.
    private func attempt(_ target: URL, rules: [String: Any], store: TrustStore?) async -> (error: String?, rules: String) {
        let text: String
        let configuration: TransportSecurityConfiguration
        do {
            let data = try JSONSerialization.data(withJSONObject: rules, options: [.sortedKeys])
            text = String(decoding: data, as: UTF8.self)
            configuration = try TransportSecurityConfiguration.load(from: data, source: "attempt").0
        } catch {
            return ("the rules cannot be built: \(error)", "{}")
        }
        let session = SecureSession(configuration: SecureSessionConfiguration(
            tls: .init(systemStore: store, decisionCache: nil, transportRules: configuration),
            connections: .init(addressOverrides: ResolveOption.overrides(resolve)),
            timeouts: .init(connect: TimeLimit.duration(maxTime), request: TimeLimit.duration(maxTime)),
            responses: .init(maximumRedirects: 0, validation: .none),
            logger: Logger(label: "tsec.ats-diagnose", factory: { _ in SwiftLogNoOpLogHandler() })
        ))
        var request = SecureRequest(url: target)
        request.followsRedirects = false
        let outcome: String?
        do {
            _ = try await session.send(request)
            outcome = nil
        } catch {
            outcome = "\(error)"
        }
        await session.shutdown()
        return (outcome, text)
    }

    /// The ATS dictionary of a configuration file, as a dictionary to vary: read as the rules'
    /// loader reads it (its issues go to stderr), with TrustKit's pin sets from
    /// `TSKConfiguration` when the file keeps them there, and every value JSON can carry.
    func readDictionary(_ path: String, reportingTo output: CommandOutput) throws -> [String: Any] {
        let data: Data
        do {
            data = try InputFile.read(path)
        } catch {
            throw TransportSecurityConfigurationError(source: path, reason: "the file cannot be read: \(error)")
        }
        let root = try TransportSecurityConfiguration.dictionary(from: data, source: path)
        for issue in TransportSecurityConfiguration.load(root: root).1 {
            output.error("tsec ats-diagnose: \(path): \(issue)")
        }
        var ats = root["NSAppTransportSecurity"] as? [String: Any] ?? root
        if let trustKit = root["TSKConfiguration"] as? [String: Any], let sets = trustKit["TSKPinnedDomains"] as? [String: Any] {
            // Both places apply; a domain named in both keeps the ATS dictionary's set, which
            // the rules find first.
            let own = ats["TSKPinnedDomains"] as? [String: Any] ?? [:]
            ats["TSKPinnedDomains"] = own.merging(sets) { mine, _ in mine }
        }
        return Self.jsonCompatible(ats) as? [String: Any] ?? [:]
    }

    /// `value` with what JSON cannot hold replaced: a date by its day (as `TSKExpirationDate`
    /// is written), data by null (a value of the wrong type either way, reported as such).
    private static func jsonCompatible(_ value: Any) -> Any {
        switch value {
        case let date as Date: return String(date.formatted(.iso8601).prefix(10))
        case is Data: return NSNull()
        case let dictionary as [String: Any]: return dictionary.mapValues(jsonCompatible)
        case let array as [Any]: return array.map(jsonCompatible)
        default: return value
        }
    }
}
