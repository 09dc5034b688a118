import SwiftASN1
import X509

extension Certificate.PublicKey {
    /// The exact bit length of an RSA key's modulus, read from the key's `RSAPublicKey`
    /// structure; `nil` for other keys or one that does not decode.
    ///
    /// swift-crypto's `keySizeInBits` rounds to whole bytes, which hides a 2052-bit modulus.
    var rsaModulusBitCount: Int? {
        do {
            let node = try DER.parse(Array(subjectPublicKeyInfoBytes))
            let modulus = try DER.sequence(node, identifier: .sequence) { nodes in
                let modulus = try ArraySlice<UInt8>(derEncoded: &nodes)
                _ = try ArraySlice<UInt8>(derEncoded: &nodes)
                return modulus
            }
            guard let first = modulus.firstIndex(where: { $0 != 0 }) else { return 0 }
            return (modulus.endIndex - first) * 8 - modulus[first].leadingZeroBitCount
        } catch {
            return nil
        }
    }
}
