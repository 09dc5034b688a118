extension Hasher {
    /// Feeds `bytes` (and their count) in one call. `[UInt8]`'s own `hash(into:)` feeds them one
    /// element at a time, which made hashing a decision-cache key cost most of a cache hit.
    mutating func combine(byteArray bytes: [UInt8]) {
        combine(bytes.count)
        bytes.withUnsafeBytes { combine(bytes: $0) }
    }
}
