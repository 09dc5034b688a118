import Foundation

/// Any property-list value, read with `PropertyListDecoder` (XML or binary).
///
/// `PropertyListSerialization` on Linux leaks the error it makes for every malformed property
/// list (found by `Fuzz/run.sh FuzzConfiguration`); the decoder does not, so configurations are
/// read through this type and handed on as plain values.
enum PropertyListValue: Decodable {
    case dictionary([String: PropertyListValue])
    case array([PropertyListValue])
    case bool(Bool)
    case integer(Int)
    case real(Double)
    case date(Date)
    case data(Data)
    case string(String)

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            var dictionary: [String: PropertyListValue] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(PropertyListValue.self, forKey: key) }
            self = .dictionary(dictionary)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [PropertyListValue] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(PropertyListValue.self)) }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? single.decode(Double.self) {
            self = .real(value)
        } else if let value = try? single.decode(Date.self) {
            self = .date(value)
        } else if let value = try? single.decode(Data.self) {
            self = .data(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    /// The value as `PropertyListSerialization` would give it.
    var plainValue: Any {
        switch self {
        case .dictionary(let dictionary): return dictionary.mapValues(\.plainValue)
        case .array(let array): return array.map(\.plainValue)
        case .bool(let value): return value
        case .integer(let value): return value
        case .real(let value): return value
        case .date(let value): return value
        case .data(let value): return value
        case .string(let value): return value
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
