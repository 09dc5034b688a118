import FuzzDriver
import TransportSecurityNIO

/// PKCS#12 bytes under the seed corpus's passphrase and under a wrong one, then the same bytes
/// as base64 text: every outcome is an identity or a ``ClientIdentityError``, never a trap.
func fuzzPKCS12(_ input: UnsafeRawBufferPointer) {
    let bytes = Array(input)
    for passphrase in ["fuzz", "wrong"] {
        do {
            _ = try ClientIdentity(pkcs12: bytes, passphrase: passphrase, source: "fuzz")
        } catch is ClientIdentityError {
        } catch {
            preconditionFailure("PKCS#12 loading threw something other than ClientIdentityError: \(error)")
        }
    }
}

@main
enum FuzzPKCS12Main {
    static func main() { runFuzzer(fuzzPKCS12) }
}
