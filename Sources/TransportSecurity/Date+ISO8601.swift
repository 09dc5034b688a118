import Foundation

extension Date {
    /// An ISO 8601 internet time, with or without fractional seconds (`2027-01-31T00:00:00Z`,
    /// `2027-01-31T00:00:00.5Z`), as signed documents and log lists write them.
    init?(iso8601 text: String) {
        let parsed = (try? Date(text, strategy: .iso8601)) ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        guard let parsed else { return nil }
        self = parsed
    }
}
