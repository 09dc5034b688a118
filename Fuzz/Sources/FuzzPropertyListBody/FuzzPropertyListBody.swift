import Foundation
import FuzzDriver
import SecureSession

/// A value of nested containers and scalars, so that the decoder walks whatever the list holds.
indirect enum AnyPlistValue: Decodable {
    case dictionary([String: AnyPlistValue])
    case array([AnyPlistValue])
    case string(String)
    case number(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)

    init(from decoder: any Decoder) throws {
        if let dictionary = try? [String: AnyPlistValue](from: decoder) {
            self = .dictionary(dictionary)
        } else if let array = try? [AnyPlistValue](from: decoder) {
            self = .array(array)
        } else {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Bool.self) {
                self = .boolean(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else if let value = try? container.decode(Date.self) {
                self = .date(value)
            } else if let value = try? container.decode(Data.self) {
                self = .data(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }
}

/// A response body read as a property list: it decodes or fails with `undecodableResponse`,
/// never crashes (Foundation on Linux crashes on some binary lists and recurses without bound on
/// deeply nested XML ones).
func fuzzPropertyListBody(_ input: UnsafeRawBufferPointer) {
    let data = Data(input)
    do {
        _ = try PropertyListBody.decode(AnyPlistValue.self, from: data)
    } catch SecureSessionError.undecodableResponse(let detail) {
        precondition(detail.hasPrefix("the body is not the property list of AnyPlistValue: "), "an unexpected failure text: \(detail)")
    } catch {
        preconditionFailure("an error other than undecodableResponse: \(error)")
    }
}

@main
enum FuzzPropertyListBodyMain {
    static func main() { runFuzzer(fuzzPropertyListBody) }
}
