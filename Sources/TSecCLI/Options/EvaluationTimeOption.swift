import ArgumentParser
import Foundation
import TransportSecurity

/// `--at ISO8601`: the moment certificates are judged at, shared by the commands that judge.
struct EvaluationTimeOption: ParsableArguments {
    @Option(help: "The evaluation time, ISO 8601 (2030-01-01T00:00:00Z). Default: now.")
    var at: String?

    func validate() throws {
        if let at, Self.parse(at) == nil {
            throw ValidationError("--at '\(at)' is not an ISO 8601 time such as 2030-01-01T00:00:00Z")
        }
    }

    /// The time given, if any.
    var date: Date? { at.flatMap(Self.parse) }

    static func parse(_ text: String) -> Date? {
        Date(iso8601: text)
    }
}
