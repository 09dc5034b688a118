import ArgumentParser
import SecureSession

/// curl's `--resolve HOST:PORT:ADDRESS` entries, as `get` and `ats-diagnose` take them.
enum ResolveOption {
    /// Refuses the first entry that is not `HOST:PORT:ADDRESS`, saying why.
    static func validate(_ entries: [String]) throws {
        for entry in entries {
            do {
                _ = try AddressOverride(curlSyntax: entry)
            } catch {
                throw ValidationError("--resolve \(error)")
            }
        }
    }

    /// The overrides of validated entries.
    static func overrides(_ entries: [String]) -> [AddressOverride] {
        entries.compactMap { try? AddressOverride(curlSyntax: $0) }
    }
}
