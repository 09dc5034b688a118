import Foundation
import SwiftASN1
import X509

/// Runs one server-trust evaluation: path building and policy checks through swift-certificates'
/// `Verifier`, then, on failure, the choice of the reasons to report.
struct ServerTrustEngine {
    let trust: ServerTrust
    let anchors: TrustStore
    let time: Date

    func run() async -> TrustEvaluation {
        guard let leaf = trust.chain.first else {
            return result(.fatalFailure, failures: [TrustFailure(.emptyChain, detail: "the server presented no certificate")])
        }
        let state = PathBuildingState(workUnits: trust.limits.maximumWork)
        let policy = ServerTrustVerifierPolicy(validation: trust.policy, time: time, limits: trust.limits, options: trust.options, state: state)
        var verifier = Verifier(
            rootCertificates: CertificateStore(custom: BudgetedCertificateStore(index: anchors.index, budget: state))
        ) { policy }
        let intermediates = CertificateStore(
            custom: BudgetedCertificateStore(index: CertificateIndex(trust.chain.dropFirst()), budget: state)
        )
        let validation = await verifier.validate(leaf: leaf.certificate, intermediates: intermediates)

        if case .validCertificate(let path) = validation {
            let wrapped = path.map { certificate in
                trust.chain.first { $0.isSame(as: certificate) } ?? anchors.index.wrapped(certificate)
            }
            if wrapped.allSatisfy({ $0 != nil }) {
                return result(.trusted, path: wrapped.compactMap { $0 })
            }
        }
        // The verifier refuses a leaf with an unprocessed critical extension before building any
        // path, and says nothing more: name the extension.
        if let failure = Self.unhandledCriticalExtension(of: leaf, handled: policy.verifyingCriticalExtensions) {
            return result(.fatalFailure, failures: [failure])
        }
        if state.exhausted {
            return result(
                .fatalFailure,
                failures: [
                    TrustFailure(
                        .workBudgetExceeded,
                        certificate: leaf.subjectSummary,
                        detail: "path building gave up after \(trust.limits.maximumWork) units of work without finding a valid path"
                    )
                ]
            )
        }
        if let closest = Self.closestCandidate(state.failuresOfEachCandidate) {
            let recoverable = closest.allSatisfy(\.code.isRecoverable)
            return result(recoverable ? .recoverableFailure : .fatalFailure, failures: closest)
        }
        let failure = UnbuildablePathDiagnosis(chain: trust.chain, anchors: anchors, limits: trust.limits).explain()
        return result(failure.code.isRecoverable ? .recoverableFailure : .fatalFailure, failures: [failure])
    }

    /// The failures of the candidate path that came closest: one whose failures are all
    /// recoverable if there is one, then the one with the fewest failures, then the first.
    static func closestCandidate(_ candidates: [[TrustFailure]]) -> [TrustFailure]? {
        let failed = candidates.filter { !$0.isEmpty }
        return failed.enumerated().min { lhs, rhs in
            let left = (lhs.element.allSatisfy(\.code.isRecoverable) ? 0 : 1, lhs.element.count, lhs.offset)
            let right = (rhs.element.allSatisfy(\.code.isRecoverable) ? 0 : 1, rhs.element.count, rhs.offset)
            return left < right
        }?.element
    }

    static func unhandledCriticalExtension(of certificate: DERCertificate, handled: [ASN1ObjectIdentifier])
        -> TrustFailure?
    {
        let unhandled = certificate.certificate.extensions.filter { $0.critical && !handled.contains($0.oid) }
        guard !unhandled.isEmpty else { return nil }
        return TrustFailure(
            .unhandledCriticalExtension,
            certificate: certificate.subjectSummary,
            detail: "has critical extensions this library does not process: \(unhandled.map { "\($0.oid)" }.joined(separator: ", "))"
        )
    }

    private func result(
        _ outcome: TrustEvaluation.Outcome,
        path: [DERCertificate] = [],
        failures: [TrustFailure] = []
    ) -> TrustEvaluation {
        TrustEvaluation(
            outcome: outcome,
            path: path,
            failures: failures,
            policy: trust.policy,
            evaluationTime: time,
            anchors: anchors.description,
            presentedChain: trust.chain
        )
    }
}
