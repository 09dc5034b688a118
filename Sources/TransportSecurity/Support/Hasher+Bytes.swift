extension Hasher {
    /// Feeds `bytes` (and their count) in one call. `[UInt8]`'s own `hash(into:)` feeds them one
    /// element at a time, which made hashing a decision-cache key cost most of a cache hit.
    mutating func combine(byteArray bytes: [UInt8]) {
        combine(bytes.count)
        bytes.withUnsafeBytes { combine(bytes: $0) }
    }
}

extension Hasher {
    /// Feeds the UTF-8 bytes of `text` (and their count) in one call, so that text is hashed by
    /// its bytes, as it is compared where a ``ServerHost`` or a host pattern uses it; `String`'s
    /// own `hash(into:)` hashes a normalized form, matching its canonical-equivalence `==`.
    mutating func combine(byteString text: String) {
        var text = text
        text.withUTF8 { bytes in
            combine(bytes.count)
            combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }
}
