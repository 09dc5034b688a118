import SwiftASN1
import X509

extension Certificate.PublicKey {
    /// The whole SubjectPublicKeyInfo, DER (algorithm and key), as pins and log IDs hash it.
    public var subjectPublicKeyInfoDER: [UInt8] {
        var serializer = DER.Serializer()
        // Serializing a parsed key cannot fail: it is the structure it was read from.
        try? serializer.serialize(self)
        return serializer.serializedBytes
    }
}
