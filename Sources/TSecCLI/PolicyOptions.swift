import ArgumentParser
import Foundation
import TransportSecurity

/// The security-policy options `tsec evaluate` and `tsec get` share.
struct PolicyOptions: ParsableArguments {
    /// The pinning modes as written on the command line.
    enum Mode: String, ExpressibleByArgument, CaseIterable, Sendable {
        case none
        case publicKey = "public-key"
        case certificate

        var pinningMode: SSLPinningMode {
            switch self {
            case .none: return .none
            case .publicKey: return .publicKey
            case .certificate: return .certificate
            }
        }
    }

    @Option(help: "The pinning mode.")
    var mode: Mode = .none

    @Option(name: .customLong("pin"), help: "A certificate file to pin (a bundle pins each certificate). Repeatable.")
    var pins: [String] = []

    @Flag(help: "Accept chains that do not validate, as far as the pinning mode allows.")
    var allowInvalidCertificates = false

    @Flag(help: "Do not check that the certificate names the host.")
    var noDomainValidation = false

    @Option(help: "A PEM bundle that replaces the system trust store.")
    var systemRoots: String?

    @OptionGroup var time: EvaluationTimeOption

    func validate() throws {
        if mode != .none, pins.isEmpty {
            throw ValidationError("--mode \(mode.rawValue) needs at least one --pin certificate")
        }
    }

    /// The policy the options describe (reads the pinned certificates); `insecure` (`tsec get
    /// -k`) adds `--allow-invalid-certificates` and `--no-domain-validation`.
    func makePolicy(insecure: Bool = false) throws -> SecurityPolicy {
        SecurityPolicy(
            pinningMode: mode.pinningMode,
            pinnedCertificates: try pins.flatMap { try CertificateLoader.certificates(atPath: $0) },
            allowInvalidCertificates: allowInvalidCertificates || insecure,
            validatesDomainName: !noDomainValidation && !insecure
        )
    }

    /// The evaluator of the options with SPKI pins (`--pin-sha256`) beside them: the pins alone,
    /// with system validation unless invalid certificates are allowed, when no `--mode` is
    /// given; otherwise the policy and the pins must both agree.
    func makeEvaluator(spkiPins pins: [SPKIPin], insecure: Bool = false) throws -> any ServerTrustEvaluating {
        let policy = try makePolicy(insecure: insecure)
        guard !pins.isEmpty else { return policy }
        let pinned = PublicKeysTrustEvaluator(
            pins: pins,
            performsDefaultValidation: !allowInvalidCertificates && !insecure,
            validatesHost: !noDomainValidation && !insecure
        )
        return mode == .none ? pinned : CompositeTrustEvaluator([policy, pinned])
    }

    /// The store given with `--system-roots` (or `replacement`, `tsec get --cacert`), if any.
    func makeSystemStore(replacement: String? = nil) throws -> TrustStore? {
        try (systemRoots ?? replacement).map { TrustStore(try CertificateLoader.certificates(atPath: $0), origin: $0) }
    }

    var evaluationTime: Date? { time.date }
}
