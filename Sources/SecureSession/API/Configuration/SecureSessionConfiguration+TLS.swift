import Foundation
import TransportSecurity
import TransportSecurityNIO

extension SecureSessionConfiguration {
    /// What servers must prove and what the session offers in TLS.
    public struct TLS: Sendable {
        /// Decides on every server's certificate: a `SecurityPolicy` (the default policy unless
        /// set), an evaluator or a `ServerTrustManager`.
        public var trustEvaluator: AnyServerTrustEvaluator
        /// The certificate and key offered when a server asks for one.
        public var clientIdentity: ClientIdentity?
        /// Files the certificate and key offered are read from, and read again when they change
        /// (a renewed certificate): new connections present the identity they hold at the time,
        /// and connections that presented an earlier one are not reused. Instead of
        /// ``clientIdentity``: with both set, requests fail with
        /// ``SecureSessionError/invalidRequest(_:)`` naming both.
        public var clientIdentityFile: ClientIdentityFile?
        /// The store standing for the system's; `nil` reads the machine's.
        public var systemStore: TrustStore?
        /// A fixed evaluation time for certificates (tests); `nil` is the time of each handshake.
        public var evaluationTime: Date?
        /// The public suffix list that bounds certificate wildcards (the one compiled into
        /// TransportSecurity by default; a newer file may be read with
        /// `PublicSuffixList.init(contentsOf:)`), and the insecure SHA-1
        /// switch (off), for every server and proxy the session judges.
        public var trustEvaluationOptions: TrustEvaluationOptions
        /// Where trust decisions are cached; `nil` evaluates every handshake.
        public var decisionCache: DecisionCache?
        /// Transport-security rules (ATS keys, `NSPinnedDomains`, pin sets): when set, cleartext
        /// is refused unless a rule allows it, TLS versions and cipher suites follow each host's
        /// rule, and a server the evaluator trusts must also pass its rule's checks. Rules only
        /// tighten.
        public var transportRules: TransportSecurityConfiguration?
        /// Where pin-set failures are reported; `nil` makes one when the rules name report URLs.
        public var pinFailureReporter: PinFailureReporter?
        /// Pin sets that can change while the session runs (signed pin updates): for every new
        /// connection, the set the registry has in force for the host must be satisfied too
        /// (`PinSetEvaluator`).
        public var pinSetRegistry: PinSetRegistry?
        /// The certificate-transparency logs trusted where a transport rule requires
        /// certificate transparency (`NSRequiresCertificateTransparency`); without them such
        /// hosts are refused. To require it everywhere, wrap ``trustEvaluator`` in a
        /// `CertificateTransparencyEvaluator`.
        public var certificateTransparencyLogs: CTLogList?
        /// The lowest TLS version of the session's connections (URLSession's
        /// `tlsMinimumSupportedProtocolVersion`); `nil` (the default): TLS 1.2, or, for a host
        /// under a transport rule, the rule's minimum (`NSExceptionMinimumTLSVersion`). Set, it
        /// raises a rule's minimum, never lowers it. Proxies' TLS connections follow it too.
        public var minimumTLSVersion: TLSProtocolVersion?
        /// The highest TLS version of the session's connections (URLSession's
        /// `tlsMaximumSupportedProtocolVersion`); `nil` (the default): the newest (TLS 1.3).
        /// TLS 1.2 lets a server that asks for a client certificate after the handshake do so by
        /// renegotiation, which BoringSSL answers, instead of TLS 1.3's post-handshake
        /// authentication, which it does not (Apache's per-location `SSLVerifyClient`). A
        /// minimum above it fails each request, naming both.
        public var maximumTLSVersion: TLSProtocolVersion?

        /// Creates the TLS settings; each unnamed one keeps its default.
        public init(
            trustEvaluator: any ServerTrustEvaluating = SecurityPolicy.default,
            clientIdentity: ClientIdentity? = nil,
            clientIdentityFile: ClientIdentityFile? = nil,
            systemStore: TrustStore? = nil,
            evaluationTime: Date? = nil,
            trustEvaluationOptions: TrustEvaluationOptions = .default,
            decisionCache: DecisionCache? = .shared,
            transportRules: TransportSecurityConfiguration? = nil,
            pinFailureReporter: PinFailureReporter? = nil,
            pinSetRegistry: PinSetRegistry? = nil,
            certificateTransparencyLogs: CTLogList? = nil,
            minimumTLSVersion: TLSProtocolVersion? = nil,
            maximumTLSVersion: TLSProtocolVersion? = nil
        ) {
            self.trustEvaluator = AnyServerTrustEvaluator(trustEvaluator)
            self.clientIdentity = clientIdentity
            self.clientIdentityFile = clientIdentityFile
            self.systemStore = systemStore
            self.evaluationTime = evaluationTime
            self.trustEvaluationOptions = trustEvaluationOptions
            self.decisionCache = decisionCache
            self.transportRules = transportRules
            self.pinFailureReporter = pinFailureReporter
            self.pinSetRegistry = pinSetRegistry
            self.certificateTransparencyLogs = certificateTransparencyLogs
            self.minimumTLSVersion = minimumTLSVersion
            self.maximumTLSVersion = maximumTLSVersion
        }
    }
}
