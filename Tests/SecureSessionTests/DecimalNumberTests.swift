import Testing

@testable import SecureSession
@testable import TransportSecurity

@Suite("Decimal numbers in header fields")
struct DecimalNumberTests {
    @Test("digits only, saturating past 64 bits; empty text, signs, spaces and other characters are no number")
    func digits() {
        #expect(DecimalNumber.saturating("0".utf8) == 0)
        #expect(DecimalNumber.saturating("31536000".utf8) == 31_536_000)
        #expect(DecimalNumber.saturating("9223372036854775807".utf8) == Int64.max)
        #expect(DecimalNumber.saturating("9223372036854775808".utf8) == Int64.max)
        #expect(DecimalNumber.saturating("99999999999999999999999999".utf8) == Int64.max)
        for text in ["", "-1", "+1", " 1", "1 ", "1.5", "1e3", "١٢"] {
            #expect(DecimalNumber.saturating(text.utf8) == nil, "\(text)")
        }
        #expect(DecimalNumber.saturating("99999999999999999999x".utf8) == nil)
    }
}
