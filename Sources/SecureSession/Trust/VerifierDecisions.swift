import Foundation
import TransportSecurity

/// The decisions a connection's verifier made.
final class VerifierDecisions: @unchecked Sendable {
    private let lock = NSLock()
    private var decisions: [TrustDecision] = []

    func record(_ decision: TrustDecision) { lock.withLock { decisions.append(decision) } }

    var last: TrustDecision? { lock.withLock { decisions.last } }
}
