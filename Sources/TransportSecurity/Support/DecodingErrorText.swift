import Foundation

/// Errors of `JSONDecoder`, `JSONSerialization`, `PropertyListDecoder` and
/// `PropertyListSerialization` as short sentences that name the place in the document:
/// `domains.example.com.pins: expected an array of strings`, `unexpected end of file during JSON
/// parse` (Foundation's own descriptions say only "The data is not in the correct format", and
/// `String(describing:)` of a `DecodingError` is a dump of its context).
package enum DecodingErrorText {
    /// `error` as a sentence; `document` names the whole document when the error is about it.
    /// `json`, the bytes that were decoded, lets a syntax error say where it is (on Linux,
    /// `JSONDecoder` says only "The given data was not valid JSON."). `format` names what a
    /// document that does not parse is not (`not JSON`, `not a property list`).
    package static func describe(_ error: any Error, document: String = "the document", json: Data? = nil, format: String = "JSON") -> String {
        if let error = error as? DecodingError { return describe(error, document: document, json: json, format: format) }
        let nsError = error as NSError
        if let parser = nsError.userInfo["NSDebugDescription"] as? String, !parser.isEmpty {
            return lowercasingFirstLetter(parser.hasSuffix(".") ? String(parser.dropLast()) : parser)
        }
        return CertificateLoader.readable(error)
    }

    private static func describe(_ error: DecodingError, document: String, json: Data?, format: String) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? document : path.replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return (parent == document ? "" : parent + ".") + key.stringValue + ": missing"
        case .typeMismatch(let type, let context): return "\(path(context)): expected \(name(of: type))"
        case .valueNotFound(let type, let context): return "\(path(context)): expected \(name(of: type)), found null"
        case .dataCorrupted(let context):
            guard context.codingPath.isEmpty else { return "\(path(context)): \(context.debugDescription)" }
            if let underlying = context.underlyingError { return "not \(format) (\(describe(underlying)))" }
            if let json, let syntax = syntaxError(in: json) { return "not \(format) (\(describe(syntax)))" }
            return "not \(format)"
        @unknown default: return String(describing: error)
        }
    }

    private static func syntaxError(in json: Data) -> (any Error)? {
        do {
            _ = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
            return nil
        } catch {
            return error
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is UInt64.Type: return "an integer"
        case is Double.Type: return "a number"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is [String].Type: return "an array of strings"
        case is [Any].Type: return "an array"
        default:
            let text = String(describing: type)
            return text.hasPrefix("Array<") ? "an array" : "an object"
        }
    }

    private static func lowercasingFirstLetter(_ text: String) -> String {
        guard let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
