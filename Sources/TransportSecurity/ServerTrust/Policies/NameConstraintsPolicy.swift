import SwiftASN1
import X509

/// Name constraints (RFC 5280 §4.2.1.10), in place of swift-certificates' processing, with a
/// bound on their cost and the host as one more name to check.
///
/// - Every CA of the path, anchor included, constrains the certificates below it: their
///   subjectAltName entries and non-empty subjects (as directory names), except self-issued
///   intermediates. DNS, IP, mailbox, URI and directory-name subtrees are compared; a name of a
///   form that cannot be compared (otherName and the like) fails when a subtree of that form
///   exists, and is ignored when none does.
/// - The host the client connected to must satisfy them too, so that a wildcard leaf under a
///   CA that excludes one of its names cannot serve that name (CVE-2025-61727).
/// - A malformed extension (no subtrees at all, whether the lists are absent or present and empty;
///   a DNS subtree with a leading period; an IP subtree with a bad mask) or name constraints in an end-entity certificate refuse the path.
/// - Comparisons are counted before they are made: a path needing more than
///   ``maximumComparisons`` is refused at once, so that a certificate with thousands of names
///   under thousands of constraints costs microseconds, not seconds.
///
/// Non-critical name constraints are honoured, as the web PKI does.
public struct NameConstraintsPolicy: FailureReportingPolicy {
    /// The host the client connected to, checked as one more name; `nil` for none.
    public let host: ServerHost?
    /// The most name-against-subtree comparisons a path may need.
    public let maximumComparisons: Int

    /// The name constraints extension is processed here.
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.nameConstraints] }

    /// Go's bound on the same work.
    public static let defaultMaximumComparisons = 250_000

    /// Creates the policy.
    public init(host: ServerHost?, maximumComparisons: Int = NameConstraintsPolicy.defaultMaximumComparisons) {
        self.host = host
        self.maximumComparisons = maximumComparisons
    }

    /// The first name of the path (or the host) that a CA's constraints refuse
    /// (``TrustFailure/Code/constraintViolation``), a malformed or misplaced constraint, or a
    /// ``TrustFailure/Code/workBudgetExceeded`` when the comparisons would exceed
    /// ``maximumComparisons``; nothing for a path of one.
    public func failures(in path: CertificatePath) -> [TrustFailure] {
        guard path.count > 1 else { return [] }
        let certificates = path.certificates
        if certificates[0].certificate.extensions[oid: .X509ExtensionID.nameConstraints] != nil {
            return [
                TrustFailure(
                    .misissued,
                    certificate: certificates[0].subjectText,
                    detail: "is an end-entity certificate with name constraints, which belong in CA certificates only"
                )
            ]
        }
        var comparisons = 0
        for issuerIndex in certificates.indices.dropFirst() {
            let issuer = certificates[issuerIndex]
            let constraints: NameConstraints
            switch Self.constraints(of: issuer) {
            case .none: continue
            case .failure(let failure): return [failure]
            case .constraints(let found): constraints = found
            }
            var subjects: [(holder: String, names: [GeneralName])] = []
            for index in 0..<issuerIndex where index == 0 || !certificates[index].isSelfIssued {
                do {
                    subjects.append((certificates[index].subjectText, try Self.names(of: certificates[index])))
                } catch {
                    return [TrustFailure(.malformedCertificate, certificate: certificates[index].subjectText, detail: "has a malformed subjectAltName extension: \(error)")]
                }
            }
            if let host { subjects.append(("the host \(host)", [host.generalName])) }

            let subtreeCount = constraints.permittedSubtrees.count + constraints.excludedSubtrees.count
            comparisons += subjects.reduce(0) { $0 + $1.names.count } * subtreeCount
            guard comparisons <= maximumComparisons else {
                return [
                    TrustFailure(
                        .workBudgetExceeded,
                        certificate: issuer.subjectText,
                        detail: "checking its \(subtreeCount) name constraints would take more than \(maximumComparisons) comparisons"
                    )
                ]
            }
            for subject in subjects {
                for name in subject.names {
                    if let violation = Self.violation(of: name, by: constraints) {
                        return [
                            TrustFailure(
                                .constraintViolation,
                                certificate: issuer.subjectText,
                                detail: "its name constraints refuse \(subject.holder): \(violation)"
                            )
                        ]
                    }
                }
            }
        }
        return []
    }

    private enum Lookup {
        case none
        case constraints(NameConstraints)
        case failure(TrustFailure)
    }

    private static func constraints(of issuer: PathCertificate) -> Lookup {
        let found: NameConstraints?
        do {
            found = try issuer.nameConstraints()
        } catch {
            return .failure(TrustFailure(.malformedCertificate, certificate: issuer.subjectText, detail: "has a malformed name constraints extension: \(error)"))
        }
        guard let found else { return .none }
        if found.permittedSubtrees.isEmpty && found.excludedSubtrees.isEmpty {
            return .failure(TrustFailure(.misissued, certificate: issuer.subjectText, detail: "has a name constraints extension whose subtree lists are both empty"))
        }
        if let malformation = (found.permittedSubtrees + found.excludedSubtrees).lazy.compactMap(NameConstraintSubtree.malformation).first {
            return .failure(TrustFailure(.malformedCertificate, certificate: issuer.subjectText, detail: malformation))
        }
        return .constraints(found)
    }

    /// The names name constraints apply to: the subjectAltName entries, and the subject as a
    /// directory name when it is not empty.
    static func names(of certificate: PathCertificate) throws -> [GeneralName] {
        var names = Array(try certificate.subjectAlternativeNames() ?? SubjectAlternativeNames())
        if !certificate.certificate.subject.isEmpty { names.append(.directoryName(certificate.certificate.subject)) }
        return names
    }

    /// Why `constraints` refuse `name`, or `nil` when they allow it.
    static func violation(of name: GeneralName, by constraints: NameConstraints) -> String? {
        for subtree in constraints.excludedSubtrees {
            switch NameConstraintSubtree.compare(name, with: subtree) {
            case .inside: return "\(name.readable) is inside the excluded subtree \(subtree.readable)"
            case .unsupported: return "\(name.readable) cannot be compared with the excluded subtree \(subtree.readable)"
            case .outside, .differentForm: continue
            }
        }
        var subtreesOfItsForm: [GeneralName] = []
        for subtree in constraints.permittedSubtrees {
            switch NameConstraintSubtree.compare(name, with: subtree) {
            case .inside: return nil
            case .unsupported: return "\(name.readable) cannot be compared with the permitted subtree \(subtree.readable)"
            case .outside: subtreesOfItsForm.append(subtree)
            case .differentForm: continue
            }
        }
        guard !subtreesOfItsForm.isEmpty else { return nil }
        return "\(name.readable) is outside every permitted subtree (\(subtreesOfItsForm.map(\.readable).joined(separator: ", ")))"
    }
}

extension ServerHost {
    /// The host as a subjectAltName entry.
    var generalName: GeneralName {
        switch self {
        case .dnsName(let name): return .dnsName(name)
        case .ipAddress: return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(addressBytes ?? [])))
        }
    }
}
