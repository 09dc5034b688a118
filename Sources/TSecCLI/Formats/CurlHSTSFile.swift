import Foundation
import SecureSession
import TransportSecurity

/// The HSTS cache file curl reads and writes with `--hsts FILE`: one known host per line,
/// `host "YYYYMMDD HH:MM:SS"` (the expiry in UTC, or `"unlimited"`), the host with a leading dot
/// when its subdomains are included; lines starting with `#` are comments.
enum CurlHSTSFile {
    /// Why an HSTS file cannot be read: the file, the line and what is wrong.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// The entries of `text` (read from `source`).
    static func entries(in text: String, source: String) throws(Malformed) -> [HSTSEntry] {
        var entries: [HSTSEntry] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            func malformed(_ reason: String) -> Malformed {
                Malformed(description: "\(source), line \(index + 1): \(reason); a line is HOST \"YYYYMMDD HH:MM:SS\" or HOST \"unlimited\"")
            }
            guard let space = line.firstIndex(of: " ") else { throw malformed("no expiry after the host") }
            var host = String(line[..<space])
            let stamp = line[space...].trimmingCharacters(in: .whitespaces)
            guard stamp.count >= 2, stamp.hasPrefix("\""), stamp.hasSuffix("\"") else { throw malformed("the expiry is not in double quotes") }
            let includesSubdomains = host.hasPrefix(".")
            if includesSubdomains { host.removeFirst() }
            let expiry = String(stamp.dropFirst().dropLast())
            let expires: Date?
            if expiry == "unlimited" {
                expires = nil
            } else {
                guard let date = date(expiry) else { throw malformed("the expiry '\(expiry)' is not YYYYMMDD HH:MM:SS") }
                expires = date
            }
            let entry = HSTSEntry(host: host, includesSubdomains: includesSubdomains, expires: expires)
            guard entry.hasWellFormedHost else { throw malformed("'\(host)' is not a host name") }
            entries.append(entry)
        }
        return entries
    }

    /// `entries` as an HSTS file curl reads.
    static func text(of entries: [HSTSEntry]) -> String {
        var text = "# Your HSTS cache. https://curl.se/docs/hsts.html\n# Written by tsec get --hsts; curl --hsts reads it.\n"
        for entry in entries {
            let expiry = entry.expires.map { stampFormat.string(from: $0) } ?? "unlimited"
            text += "\(entry.includesSubdomains ? "." : "")\(entry.host) \"\(expiry)\"\n"
        }
        return text
    }

    private static let stampFormat: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd HH:mm:ss"
        return formatter
    }()

    /// A `YYYYMMDD HH:MM:SS` stamp in UTC; `nil` for anything else (a day the month lacks, a 25th hour).
    private static func date(_ text: String) -> Date? {
        let digits = text.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: ":", with: "")
        guard text.count == 17, digits.count == 14, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let date = stampFormat.date(from: text), stampFormat.string(from: date) == text
        else { return nil }
        return date
    }
}
