@_spi(FixedExpiryValidationTime) import X509
import Foundation
import SwiftASN1

/// Asks OCSP about one certificate of a validated path at a time, through swift-certificates'
/// `OCSPVerifierPolicy`.
///
/// The policy runs in hard mode over the whole path with a requester that queries for the one
/// certificate only (the others are passed over), so it passes only when that certificate's
/// response verifies (signature, responder, certificate ID, times, nonce) and says good. In soft
/// mode the policy would pass on a response it cannot verify, which would then be taken for a
/// good answer and keep the CRL from being asked. On a failure, what the response itself claims
/// tells a revocation from a response that is no answer.
struct OCSPPathCheck {
    /// The validated path, anchor last.
    let path: [DERCertificate]
    let fetcher: (any RevocationFetching)?
    let networkAllowed: Bool
    /// The evaluation time: responses must be current then.
    let time: Date

    /// The OCSP answer for `path[index]`.
    func status(ofCertificateAt index: Int) async -> RevocationEvaluator.Status {
        let exchange = OCSPExchange()
        let requester = TargetedOCSPRequester(target: path[index].certificate, fetcher: fetcher, networkAllowed: networkAllowed, exchange: exchange)
        let critical = Set(path.flatMap { $0.certificate.extensions.filter(\.critical).map(\.oid) })
        var verifier = Verifier(rootCertificates: CertificateStore([path[path.count - 1].certificate])) {
            PathRevocationPolicy(
                verifyingCriticalExtensions: Array(critical),
                ocsp: OCSPVerifierPolicy(failureMode: .hard, requester: requester, fixedExpiryValidationTime: time)
            )
        }
        let intermediates = CertificateStore(path.dropFirst().dropLast().map(\.certificate))
        let failure: String?
        switch await verifier.validate(leaf: path[0].certificate, intermediates: intermediates) {
        case .validCertificate:
            failure = nil
        case .couldNotValidate(let failures):
            let reasons = failures.map(\.policyFailureReason.description).joined(separator: "; ")
            failure = reasons.isEmpty ? "the path could not be rebuilt for OCSP" : reasons
        }
        switch exchange.outcome {
        case nil:
            // Never asked: the certificate names no responder, or the run failed elsewhere.
            return .noAnswer(failure ?? "no OCSP responder")
        case .failure(let why):
            return .noAnswer(why)
        case .response(let bytes, let request, let certificateID, let responder):
            let claim = OCSPMessageSummary.singleResponse(for: certificateID, inResponse: bytes)
            guard let failure else {
                // swift-certificates refuses a response without nextUpdate (RFC 5019 §4); were one
                // let through, it would hold for this evaluation only.
                return .good(source: "OCSP", until: claim?.nextUpdate ?? time)
            }
            // Not kept: a forged response must not stand in for the responder until its nextUpdate.
            fetcher?.discardOCSPResponse(request: request, responderURL: responder)
            if claim?.status == .revoked {
                return .revoked("reported by OCSP \(responder): \(failure)")
            }
            return .noAnswer("OCSP \(responder): \(failure)")
        }
    }
}

/// The validated path again, judged only by OCSP: the critical extensions were handled when the
/// path was validated.
struct PathRevocationPolicy<Requester: OCSPRequester>: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier]
    var ocsp: OCSPVerifierPolicy<Requester>

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        await ocsp.chainMeetsPolicyRequirements(chain: chain)
    }
}

/// What became of the query about the one certificate a run asks about.
final class OCSPExchange: @unchecked Sendable {
    enum Outcome {
        /// The responder's answer, the request, the `CertID` it was asked about, and the responder.
        case response([UInt8], request: [UInt8], certificateID: [UInt8], responder: String)
        /// No answer, and why.
        case failure(String)
    }

    private let lock = NSLock()
    private var recorded: Outcome?

    /// Keeps the first outcome.
    func record(_ outcome: Outcome) { lock.withLock { if recorded == nil { recorded = outcome } } }

    var outcome: Outcome? { lock.withLock { recorded } }
}

/// Sends the query about one certificate to the fetcher; queries about other certificates of
/// the path are passed over (a non-terminal error, which the policy does not hold against them).
struct TargetedOCSPRequester: OCSPRequester {
    let target: Certificate
    let fetcher: (any RevocationFetching)?
    let networkAllowed: Bool
    let exchange: OCSPExchange

    struct NotAsked: Error, CustomStringConvertible {
        let description: String
    }

    func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
        let identifiers = (try? OCSPMessageSummary.certificateIDs(inRequest: request)) ?? []
        guard let identifier = identifiers.first(where: { $0.names(target) }) else {
            return .nonTerminalError(NotAsked(description: "another certificate is being checked"))
        }
        guard let fetcher else {
            exchange.record(.failure("no fetcher for OCSP \(uri)"))
            return .terminalError(NotAsked(description: "no fetcher for OCSP"))
        }
        do {
            let response = try await fetcher.ocspResponse(request: request, responderURL: uri, networkAllowed: networkAllowed)
            exchange.record(.response(response, request: request, certificateID: identifier.derBytes, responder: uri))
            return .response(response)
        } catch {
            exchange.record(.failure("OCSP \(uri): \(error)"))
            return .terminalError(error)
        }
    }
}
