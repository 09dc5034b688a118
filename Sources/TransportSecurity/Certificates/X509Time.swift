import Foundation
import SwiftASN1

/// Reading and writing the two ASN.1 time forms of X.509 (UTCTime until 2049, GeneralizedTime
/// after), for the structures swift-certificates does not model (CRLs, OCSP responses).
public enum X509Time {
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The moment a UTCTime or GeneralizedTime node names.
    public static func date(_ node: ASN1Node) throws -> Date {
        let parts: (Int, Int, Int, Int, Int, Int)
        if node.identifier == UTCTime.defaultIdentifier {
            let time = try UTCTime(derEncoded: node)
            parts = (time.year, time.month, time.day, time.hours, time.minutes, time.seconds)
        } else {
            let time = try GeneralizedTime(derEncoded: node)
            parts = (time.year, time.month, time.day, time.hours, time.minutes, time.seconds)
        }
        let components = DateComponents(year: parts.0, month: parts.1, day: parts.2, hour: parts.3, minute: parts.4, second: parts.5)
        guard let date = calendar.date(from: components) else { throw RevocationError("an impossible date") }
        return date
    }

    /// Whether a node is a time.
    public static func isTime(_ node: ASN1Node) -> Bool {
        node.identifier == UTCTime.defaultIdentifier || node.identifier == GeneralizedTime.defaultIdentifier
    }

    /// The GeneralizedTime of a moment (whole seconds).
    public static func generalizedTime(_ date: Date) throws -> GeneralizedTime {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return try GeneralizedTime(
            year: parts.year!, month: parts.month!, day: parts.day!, hours: parts.hour!, minutes: parts.minute!, seconds: parts.second!, fractionalSeconds: 0
        )
    }

    /// Serializes a moment as RFC 5280 asks: UTCTime through 2049, GeneralizedTime after.
    public static func serialize(_ date: Date, into serializer: inout DER.Serializer) throws {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        if parts.year! < 2050 {
            try serializer.serialize(UTCTime(year: parts.year!, month: parts.month!, day: parts.day!, hours: parts.hour!, minutes: parts.minute!, seconds: parts.second!))
        } else {
            try serializer.serialize(generalizedTime(date))
        }
    }
}
