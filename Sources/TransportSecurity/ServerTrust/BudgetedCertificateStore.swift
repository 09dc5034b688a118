import Foundation
import X509

/// Counts the work of one path-building run; shared by the anchor and intermediate stores.
final class PathBuildingBudget: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int
    private var isExhausted = false

    init(units: Int) { remaining = units }

    /// Takes `units` of work; `false` (and from then on, always `false`) once the budget is spent.
    func take(_ units: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !isExhausted, remaining >= units else {
            isExhausted = true
            return false
        }
        remaining -= units
        return true
    }

    /// Whether a look-up was refused for lack of budget.
    var exhausted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isExhausted
    }
}

/// A certificate store for swift-certificates' `Verifier` that charges every issuer look-up (one
/// unit, plus one per candidate returned, each of which costs a signature check) to a
/// ``PathBuildingBudget``. Once the budget is spent, look-ups find nothing, so the verifier's
/// depth-first search drains and stops, whatever the chain.
struct BudgetedCertificateStore: CustomCertificateStore {
    let index: CertificateIndex
    let budget: PathBuildingBudget

    subscript(subject: DistinguishedName) -> [Certificate]? {
        get async {
            guard let found = index.certificates(named: subject) else {
                _ = budget.take(1)
                return nil
            }
            return budget.take(1 + found.count) ? found : nil
        }
    }

    func contains(_ certificate: Certificate) async -> Bool { index.contains(certificate) }

    /// The verifier never adds to its stores; a budgeted store is a read-only view.
    mutating func append(contentsOf certificates: some Sequence<Certificate>) {}

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.index == rhs.index && lhs.budget === rhs.budget }

    func hash(into hasher: inout Hasher) {
        hasher.combine(index)
        hasher.combine(ObjectIdentifier(budget))
    }
}
