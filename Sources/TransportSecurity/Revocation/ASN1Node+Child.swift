import SwiftASN1

extension ASN1Node {
    /// The `index`th child of a constructed node, for walking structures swift-certificates
    /// does not model (OCSP messages, CRL distribution points).
    func child(_ index: Int) throws -> ASN1Node {
        guard case .constructed(let children) = content, let found = Array(children).dropFirst(index).first else {
            throw RevocationError("a field is missing")
        }
        return found
    }
}
