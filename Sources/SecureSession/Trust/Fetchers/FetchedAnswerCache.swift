import Foundation

/// Answers fetched from the network (OCSP responses, CRLs, issuer certificates), each kept until
/// a time, at most `maximumBytes` of them; and how many fetches went out.
final class FetchedAnswerCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: (bytes: [UInt8], until: Date)] = [:]
    private var keptBytes = 0
    private var fetchCount = 0
    private let maximumBytes: Int

    init(maximumBytes: Int) { self.maximumBytes = maximumBytes }

    func value(for key: String, at time: Date) -> [UInt8]? {
        lock.withLock {
            guard let entry = entries[key] else { return nil }
            guard time <= entry.until else {
                drop(key)
                return nil
            }
            return entry.bytes
        }
    }

    /// Keeps `bytes` until `until`, making room: first by dropping answers expired at `now`,
    /// then those expiring first.
    func keep(_ bytes: [UInt8], for key: String, until: Date, now: Date) {
        lock.withLock {
            drop(key)
            guard bytes.count <= maximumBytes else { return }
            if keptBytes + bytes.count > maximumBytes {
                for (expired, entry) in entries where entry.until < now { drop(expired) }
            }
            if keptBytes + bytes.count > maximumBytes {
                for (soonest, _) in entries.sorted(by: { $0.value.until < $1.value.until }) {
                    drop(soonest)
                    if keptBytes + bytes.count <= maximumBytes { break }
                }
            }
            entries[key] = (bytes, until)
            keptBytes += bytes.count
        }
    }

    /// Forgets `key`'s answer. Called with the lock held.
    private func drop(_ key: String) {
        if let entry = entries.removeValue(forKey: key) { keptBytes -= entry.bytes.count }
    }

    func remove(_ key: String) { lock.withLock { drop(key) } }
    func countFetch() { lock.withLock { fetchCount += 1 } }
    var fetches: Int { lock.withLock { fetchCount } }
    var size: (answers: Int, bytes: Int) { lock.withLock { (entries.count, keptBytes) } }
    func removeAll() {
        lock.withLock {
            entries = [:]
            keptBytes = 0
        }
    }
}
