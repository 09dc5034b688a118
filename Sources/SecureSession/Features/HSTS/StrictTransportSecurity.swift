import Foundation
import TransportSecurity

/// A `Strict-Transport-Security` field (RFC 6797 §6.1): how long the host is to be reached over
/// https only, and whether its subdomains too.
public struct StrictTransportSecurity: Sendable, Hashable {
    /// The `max-age` directive, in seconds; 0 asks to forget the host.
    public let maximumAge: Int64
    /// The `includeSubDomains` directive.
    public let includesSubdomains: Bool

    /// Reads a field value as RFC 6797 §6.1 writes it: directives separated by `;`, names in any
    /// case, values tokens or quoted strings, `max-age` required, no directive twice, unknown
    /// directives ignored. `nil` for a value that does not follow that grammar, which §8.1 says
    /// to ignore.
    public init?(fieldValue: String) {
        var maximumAge: Int64?
        var includesSubdomains = false
        var seen: Set<String> = []
        guard let directives = Self.directives(of: fieldValue) else { return nil }
        for directive in directives {
            let text = directive.trimmingHTTPWhitespace
            if text.isEmpty { continue }
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingHTTPWhitespace.lowercased()
            guard SecureRequest.isToken(name), seen.insert(name).inserted else { return nil }
            var value: String?
            if parts.count == 2 {
                guard let read = Self.value(parts[1].trimmingHTTPWhitespace) else { return nil }
                value = read
            }
            switch name {
            case "max-age":
                // A number too long for 64 bits is still a valid one: the longest there is.
                guard let value, let seconds = DecimalNumber.saturating(value.utf8) else { return nil }
                maximumAge = seconds
            case "includesubdomains":
                guard value == nil else { return nil }
                includesSubdomains = true
            default:
                continue
            }
        }
        guard let maximumAge else { return nil }
        self.maximumAge = maximumAge
        self.includesSubdomains = includesSubdomains
    }

    /// Creates a policy.
    public init(maximumAge: Int64, includesSubdomains: Bool) {
        self.maximumAge = maximumAge
        self.includesSubdomains = includesSubdomains
    }

    /// The directives of a field value: its parts between the `;` outside quoted strings;
    /// `nil` when a quoted string is not closed.
    private static func directives(of value: String) -> [String]? {
        var directives: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if quoted {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted = false
                }
            } else if character == "\"" {
                quoted = true
            } else if character == ";" {
                directives.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        guard !quoted else { return nil }
        directives.append(current)
        return directives
    }

    /// A token or quoted string's content; `nil` when it is neither.
    private static func value(_ text: String) -> String? {
        guard text.hasPrefix("\"") else { return SecureRequest.isToken(text) ? text : nil }
        guard text.count >= 2, text.hasSuffix("\"") else { return nil }
        var content = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if escaped {
                content.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                return nil
            } else {
                content.append(character)
            }
        }
        return escaped ? nil : content
    }
}
