import Foundation
import SecureSession
import TransportSecurity

/// `tsec get --json`: what was received and how the server was trusted.
struct GetReport: Encodable {
    struct Field: Encodable {
        let name: String
        let value: String
    }

    /// The phases of the exchange that answered (``ResponseTiming``); connect and TLS are left
    /// out on a reused connection, TLS in cleartext.
    struct Timing: Encodable {
        let reusedConnection: Bool
        let queueingMilliseconds: Double
        let connectMilliseconds: Double?
        let tlsHandshakeMilliseconds: Double?
        let waitingMilliseconds: Double
        let downloadMilliseconds: Double

        init(_ timing: ResponseTiming) {
            reusedConnection = timing.reusedConnection
            queueingMilliseconds = timing.queueing.inMilliseconds
            connectMilliseconds = timing.connect?.inMilliseconds
            tlsHandshakeMilliseconds = timing.tlsHandshake?.inMilliseconds
            waitingMilliseconds = timing.waiting.inMilliseconds
            downloadMilliseconds = timing.download.inMilliseconds
        }
    }

    let status: Int
    let httpVersion: String
    /// `TLSv1.3`, `TLSv1.2`; absent in cleartext.
    let tlsVersion: String?
    let url: String
    let redirects: [String]
    let headers: [Field]
    /// The trailer fields that followed the body; absent when none came.
    let trailers: [Field]?
    let timeMilliseconds: Double
    let timing: Timing
    let attempts: Int
    /// The idempotency key the request carried, as its field held it; absent without one.
    let idempotencyKey: String?
    let trust: TrustDecision?
    let bodyBytes: Int
    let body: String?

    init(_ response: SecureResponse, bodyIncluded: Bool) {
        status = response.statusCode
        httpVersion = response.httpVersion
        tlsVersion = response.tlsVersion?.rawValue
        url = response.url.redacted
        redirects = response.redirects.map(\.redacted)
        headers = response.headers.map { Field(name: $0.name, value: $0.value) }
        trailers = response.trailers.isEmpty ? nil : response.trailers.map { Field(name: $0.name, value: $0.value) }
        timeMilliseconds = response.duration.inMilliseconds
        timing = Timing(response.timing)
        attempts = response.attempts
        idempotencyKey = response.sentRequest?.idempotencyKey
        trust = response.trustDecision
        bodyBytes = response.body.count
        body = bodyIncluded ? String(validating: response.body, as: UTF8.self) : nil
    }
}
