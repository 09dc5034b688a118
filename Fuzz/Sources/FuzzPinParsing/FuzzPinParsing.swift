import FuzzDriver
import TransportSecurity

/// `sha256/<base64>` and bare base64: a parsed pin prints as text that parses to the same pin.
func fuzzPinParsing(_ input: UnsafeRawBufferPointer) {
    let text = String(decoding: input, as: UTF8.self)
    guard let pin = try? SPKIPin(text) else { return }
    let again = try? SPKIPin(pin.description)
    precondition(again == pin, "a pin does not round-trip through its text")
}

@main
enum FuzzPinParsingMain {
    static func main() { runFuzzer(fuzzPinParsing) }
}
