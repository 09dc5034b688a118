import FuzzDriver
import Foundation
import TransportSecurity

/// A pin-update document and its signature text, split at the first `0x00`: the document parses
/// or is refused with a reason, and no input is ever accepted by a registry whose key signed
/// nothing (a forged signature would stop the run). The same bytes as a stored file are refused
/// or read, never crash the loader.
func fuzzPinUpdate(_ input: UnsafeRawBufferPointer) {
    let bytes = Array(input)
    let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
    let document = Array(bytes[..<split])
    let signature = String(decoding: bytes[min(split + 1, bytes.endIndex)...], as: UTF8.self)
    if let parsed = try? PinUpdateDocument(bytes: document) {
        precondition(parsed.version >= 1 && parsed.expiresAt > parsed.issuedAt, "a document was accepted with a bad version or dates")
        precondition(parsed.pinSets.allSatisfy { !$0.pins.isEmpty }, "a domain without pins was accepted")
    }
    // The key is read for every input: a key kept in a global sits behind enum payload bits that
    // LeakSanitizer does not follow, so it would report it as leaked when the run ends.
    guard let publicKey = try? PinUpdatePublicKey(pemEncoded: publicKeyPEM) else { preconditionFailure("the fixed key does not parse") }
    let registry = PinSetRegistry(publicKey: publicKey, store: store, clock: { Date(timeIntervalSince1970: 1_900_000_000) })
    precondition((try? registry.offer(document: document, signatureText: signature)) == nil, "a document was accepted without a valid signature")
    FileManager.default.createFile(atPath: store.path, contents: Data(bytes))
    _ = try? registry.loadStored()
    precondition(registry.source == .builtIn, "a stored file that nobody signed was put in force")
}

/// An Ed25519 key whose private half was thrown away: nothing can be signed with it.
private let publicKeyPEM = """
    -----BEGIN PUBLIC KEY-----
    MCowBQYDK2VwAyEAqTEg9ydJJEmgBlxm9p/mYyI/k8KbgpgYPaTdJTIrxGw=
    -----END PUBLIC KEY-----
    """

private let store = PinUpdateStore(path: NSTemporaryDirectory() + "tsec-fuzz-pin-store-\(getpid())")

@main
enum FuzzPinUpdateMain {
    static func main() { runFuzzer(fuzzPinUpdate) }
}
