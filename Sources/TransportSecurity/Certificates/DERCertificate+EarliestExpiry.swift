import Foundation

extension Sequence<DERCertificate> {
    /// The earliest `notAfter` among the certificates: the moment from which something relying
    /// on all of them no longer holds; `nil` when there are none.
    var earliestExpiry: Date? { lazy.map(\.certificate.notValidAfter).min() }
}
