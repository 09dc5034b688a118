import Testing

@testable import SecureSession

@Suite("Content-Range fields")
struct ContentRangeTests {
    @Test("a range with or without its length, a 416's length alone")
    func wellFormed() {
        #expect(ContentRange("bytes 0-499/1234") == ContentRange(first: 0, last: 499, completeLength: 1234))
        #expect(ContentRange("bytes 500-1233/*") == ContentRange(first: 500, last: 1233, completeLength: nil))
        #expect(ContentRange("bytes */1234") == ContentRange(first: nil, last: nil, completeLength: 1234))
        #expect(ContentRange("Bytes 0-0/1") == ContentRange(first: 0, last: 0, completeLength: 1))
    }

    @Test("anything else is no range: another unit, a last before the first, a range past the length, signs, spaces, enormous numbers, missing parts", arguments: [
        nil, "", "bytes", "items 0-1/2", "bytes 5-4/10", "bytes 0-10/10", "bytes -1-5/10", "bytes 0-5/-10", "bytes 0 -5/10",
        "bytes */*", "bytes 0-5", "bytes 0-5/10/12", "bytes 99999999999999999999-1/2", "bytes a-b/c", "bytes 0-/10",
    ])
    func malformed(_ text: String?) {
        #expect(ContentRange(text) == nil)
    }
}
