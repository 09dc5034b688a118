import ArgumentParser
import Foundation
import TransportSecurity

/// `tsec lint CONFIG`: errors and warnings, with key paths, of a transport-security
/// configuration.
public struct LintCommand: TSecCommand {
    /// The command's name and help.
    public static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a transport-security configuration (Info.plist or JSON) for mistakes and risky settings.",
        discussion: """
            Reports malformed values, unknown keys, ATS turned off by NSAllowsArbitraryLoads, cleartext \
            exceptions, TLS below 1.2, forward secrecy off, pin sets without a backup pin or expiring \
            within 30 days, subdomains included under a public suffix, and entries that never apply. \
            Exit status: 0 no errors (warnings allowed), 1 errors, 2 unreadable input.
            """
    )

    @Argument(help: "The configuration: an Info.plist (XML or binary) or JSON.")
    var config: String

    @Flag(help: "Print the issues as JSON.")
    var json = false

    @Option(help: "A public suffix list (publicsuffix.org format) to use instead of the one built in.")
    var publicSuffixList: String?

    @OptionGroup var time: EvaluationTimeOption

    /// Creates the command (for ArgumentParser).
    public init() {}

    struct Report: Encodable {
        let config: String
        let errors: Int
        let warnings: Int
        let issues: [ConfigurationIssue]
    }

    /// Loads the configuration and prints its warnings and errors; returns 1 when there is an
    /// error, 0 otherwise, 2 for unreadable input.
    public func execute(output: CommandOutput) async -> Int32 {
        let issues: [ConfigurationIssue]
        do {
            let (rules, loadIssues) = try TransportSecurityConfiguration.load(contentsOf: config)
            let suffixes = try publicSuffixList.map(PublicSuffixList.init(contentsOf:)) ?? .bundled
            issues = loadIssues + rules.lint(publicSuffixes: suffixes, now: time.date ?? Date())
        } catch {
            output.error("tsec lint: \(error)")
            return ExitStatus.usageOrInput
        }
        let errors = issues.filter { $0.severity == .error }.count
        let warnings = issues.count - errors
        if json {
            output.line(JSONOutput.encode(Report(config: config, errors: errors, warnings: warnings, issues: issues)))
        } else {
            for issue in issues { output.line(issue.description) }
            output.line("\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        }
        return errors > 0 ? ExitStatus.rejected : ExitStatus.success
    }
}
