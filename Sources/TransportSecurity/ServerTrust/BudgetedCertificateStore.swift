import Foundation
import X509

/// The mutable state of one path-building run, shared by the anchor and intermediate stores and
/// the policy: the work budget, and the failures of every candidate path the verifier checked.
/// One object and one lock per evaluation.
final class PathBuildingState: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int
    private var isExhausted = false
    private var candidateFailures: [[TrustFailure]] = []

    init(workUnits: Int) { remaining = workUnits }

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

    /// Records the failures of one candidate path (empty for an accepted one).
    func record(_ failures: [TrustFailure]) {
        lock.lock()
        candidateFailures.append(failures)
        lock.unlock()
    }

    /// The failures of each candidate path, in the order they were checked.
    var failuresOfEachCandidate: [[TrustFailure]] {
        lock.lock()
        defer { lock.unlock() }
        return candidateFailures
    }
}

/// A certificate store for swift-certificates' `Verifier` that charges every issuer look-up (one
/// unit, plus one per candidate returned, each of which costs a signature check) to the run's
/// ``PathBuildingState``. Once the budget is spent, look-ups find nothing, so the verifier's
/// depth-first search drains and stops, whatever the chain.
struct BudgetedCertificateStore: CustomCertificateStore {
    let index: CertificateIndex
    let budget: PathBuildingState

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
