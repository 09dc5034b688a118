/// Reads TLS presentation-language structures (big-endian integers, length-prefixed vectors).
struct TLSReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: [UInt8] { Array(bytes[offset...]) }

    mutating func bytes(_ count: Int, _ what: String) throws(CertificateTransparencyError) -> [UInt8] {
        guard bytes.count - offset >= count else { throw CertificateTransparencyError("truncated \(what)") }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func integer(_ width: Int, _ what: String) throws(CertificateTransparencyError) -> UInt64 {
        try bytes(width, what).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func vector(lengthBytes: Int, _ what: String) throws(CertificateTransparencyError) -> TLSReader {
        let length = Int(try integer(lengthBytes, "\(what) length"))
        return TLSReader(try bytes(length, what))
    }
}

/// Writes TLS presentation-language structures.
enum TLSWriter {
    static func integer(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }

    static func vector(_ content: [UInt8], lengthBytes: Int) -> [UInt8] {
        integer(UInt64(content.count), lengthBytes) + content
    }
}
