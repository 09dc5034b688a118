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

    /// The evaluator of the options with SPKI pins beside them: `spkiPins` (`--pin-sha256`) match
    /// a certificate of the validated path, or, when invalid certificates are allowed, the leaf
    /// or a certificate signature-linked above it; `leafPins` (curl's `--pinnedpubkey`) match the
    /// leaf's key only. The pins alone, with system validation unless invalid certificates are
    /// allowed, when no `--mode` is given; otherwise the policy and the pins must all agree.
    func makeEvaluator(spkiPins: [SPKIPin], leafPins: [SPKIPin] = [], insecure: Bool = false) throws -> any ServerTrustEvaluating {
        let policy = try makePolicy(insecure: insecure)
        let validates = !allowInvalidCertificates && !insecure
        let validatesHost = !noDomainValidation && !insecure
        var evaluators: [any ServerTrustEvaluating] = []
        if !spkiPins.isEmpty {
            evaluators.append(PublicKeysTrustEvaluator(pins: spkiPins, performsDefaultValidation: validates, validatesHost: validatesHost))
        }
        if !leafPins.isEmpty {
            evaluators.append(
                PublicKeysTrustEvaluator(pins: leafPins, performsDefaultValidation: validates, validatesHost: validatesHost, matchesLeafOnly: true)
            )
        }
        if mode != .none || evaluators.isEmpty { evaluators.insert(policy, at: 0) }
        return evaluators.count == 1 ? evaluators[0] : CompositeTrustEvaluator(evaluators)
    }

    /// The store given with `--system-roots` (or `replacement`, `tsec get --cacert`), if any.
    func makeSystemStore(replacement: String? = nil) throws -> TrustStore? {
        try (systemRoots ?? replacement).map { TrustStore(try CertificateLoader.certificates(atPath: $0), origin: $0) }
    }

    var evaluationTime: Date? { time.date }
}
