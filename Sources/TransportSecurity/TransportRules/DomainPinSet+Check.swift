import Foundation

extension DomainPinSet {
    /// What a pin set says about a validated path.
    enum Verdict {
        /// A pinned key is in the path, or the set is no longer active.
        case satisfied
        /// The connection must be refused: the reason, and the pins seen and expected.
        case rejected(String, PinMismatch?)
        /// No pinned key, but the set only reports: let through, and report this mismatch.
        case reportOnly(PinMismatch)
    }

    /// Checks the certificates a pin may match for `host` at `time`. A set refused at load
    /// blocks its hosts.
    func verdict(on path: PinnablePath, host: String, at time: Date) -> Verdict {
        if let refusal {
            return .rejected("the pin set for \(key) was refused when loaded (\(refusal)), so the domain is blocked", nil)
        }
        // However the set was made (a built-in set in code, say): one pin is no set, since the
        // loss of that key would lock every client out (fail closed).
        if Set(pins).count < DomainPinSet.minimumPins {
            return .rejected("the pin set for \(key) holds \(Set(pins).count) distinct pin\(Set(pins).count == 1 ? "" : "s"); a pin set needs at least \(DomainPinSet.minimumPins) (a backup pin), so the domain is blocked", nil)
        }
        guard isActive(at: time), !path.certificates.contains(where: { pins.contains($0.spkiPin) }) else { return .satisfied }
        let mismatch = PinMismatch(mode: .publicKey, host: host, considered: path.certificates, expected: pins.map(PinMismatch.Entry.init(pin:)))
        guard enforces else { return .reportOnly(mismatch) }
        guard path.isValidated else {
            return .rejected("the leaf's key is not in the pin set for \(key), and the chain did not validate, so only its leaf counts (the CA certificates it carries prove nothing)", mismatch)
        }
        return .rejected("no certificate of the path carries a key of the pin set for \(key)", mismatch)
    }
}
