import FuzzDriver
import TransportSecurity

/// `sha256/<base64>` and bare base64: a parsed pin prints as text that parses to the same pin.
/// PEM keys and certificate requests (`KeyPins`): whatever gives pins gives 32-byte digests that
/// round-trip too.
func fuzzPinParsing(_ input: UnsafeRawBufferPointer) {
    let text = String(decoding: input, as: UTF8.self)
    for entry in (try? KeyPins.pins(inPEM: text, source: "fuzz")) ?? [] {
        precondition(entry.pin.digest.count == 32 && (try? SPKIPin(entry.pin.description)) == entry.pin, "a key's pin does not round-trip")
    }
    guard let pin = try? SPKIPin(text) else { return }
    let again = try? SPKIPin(pin.description)
    precondition(again == pin, "a pin does not round-trip through its text")
}

@main
enum FuzzPinParsingMain {
    static func main() { runFuzzer(fuzzPinParsing) }
}
