@_spi(FixedExpiryValidationTime) import X509
import Foundation
import SwiftASN1

/// The validated path again, judged only by OCSP: the critical extensions were handled when the
/// path was validated.
struct PathRevocationPolicy<Requester: OCSPRequester>: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier]
    var ocsp: OCSPVerifierPolicy<Requester>

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        await ocsp.chainMeetsPolicyRequirements(chain: chain)
    }
}

/// Which certificates got an OCSP response, and why others did not.
final class OCSPAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var responded: Set<Certificate.SerialNumber> = []
    private var errors: [Certificate.SerialNumber: String] = [:]

    func record(_ serials: [Certificate.SerialNumber], error: String?) {
        lock.withLock {
            for serial in serials {
                if let error { errors[serial] = error } else { responded.insert(serial) }
            }
        }
    }

    func answered(_ serial: Certificate.SerialNumber) -> Bool { lock.withLock { responded.contains(serial) } }
    func error(_ serial: Certificate.SerialNumber) -> String? { lock.withLock { errors[serial] } }
}

/// Hands OCSP requests to the fetcher, skipping certificates already answered by a CRL.
struct PolicyOCSPRequester: OCSPRequester {
    let fetcher: (any RevocationFetching)?
    let pending: Set<Certificate.SerialNumber>
    let answers: OCSPAnswers
    let networkAllowed: Bool
    let hardFail: Bool

    struct Skipped: Error, CustomStringConvertible {
        let description: String
    }

    func query(request: [UInt8], uri: String) async -> OCSPRequesterQueryResult {
        let serials = (try? OCSPMessageSummary.certificateIDs(inRequest: request).map(\.serialNumber)) ?? []
        guard serials.contains(where: pending.contains) else { return .nonTerminalError(Skipped(description: "answered by a CRL")) }
        guard let fetcher else {
            answers.record(serials, error: "no fetcher for OCSP \(uri)")
            return hardFail ? .terminalError(Skipped(description: "no fetcher for OCSP")) : .nonTerminalError(Skipped(description: "no fetcher"))
        }
        do {
            let response = try await fetcher.ocspResponse(request: request, responderURL: uri, networkAllowed: networkAllowed)
            answers.record(serials, error: nil)
            return .response(response)
        } catch {
            answers.record(serials, error: "OCSP \(uri): \(error)")
            return hardFail ? .terminalError(error) : .nonTerminalError(error)
        }
    }
}
