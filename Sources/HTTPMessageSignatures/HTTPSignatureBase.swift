import Foundation
import TransportSecurity
import RawStructuredFieldValues

/// The signature base of RFC 9421 §2.5: one line per covered component, `"name";params: value`,
/// then the `"@signature-params"` line (no newline after it). What is signed, and what a
/// verifier rebuilds from the message it received.
package enum HTTPSignatureBase {
    /// The signature base of `components` in `message`, with `parameters` (the serialized
    /// inner list of `Signature-Input`) on its last line.
    package static func make(covering components: [HTTPMessageComponent], parameters: String, in message: HTTPSignatureMessage) throws(HTTPSignatureError) -> String {
        var base = ""
        var seen = Set<HTTPMessageComponent>()
        for component in components {
            guard seen.insert(component).inserted else {
                throw .invalidComponent(component.description, reason: "covered twice (RFC 9421 §2.5)")
            }
            base += "\(component): \(try value(of: component, in: message))\n"
        }
        return base + "\"@signature-params\": " + parameters
    }

    /// The value `component` has in `message` (§2.1, §2.2).
    static func value(of component: HTTPMessageComponent, in message: HTTPSignatureMessage) throws(HTTPSignatureError) -> String {
        var message = message
        if component.hasRequestParameter {
            guard !message.isRequest else {
                throw .invalidComponent(component.description, reason: "';req' names the request a response answers, and this is a request")
            }
            guard let request = message.request else {
                throw .componentNotInMessage(component.description, reason: "the response's request is not known")
            }
            message = request
        }
        if component.parameters.contains(.trailer) {
            throw .invalidComponent(component.description, reason: "trailer fields (';tr') are not supported")
        }
        return component.isDerived
            ? try derivedValue(of: component, in: message)
            : try fieldValue(of: component, in: message)
    }

    private static func derivedValue(of component: HTTPMessageComponent, in message: HTTPSignatureMessage) throws(HTTPSignatureError) -> String {
        let others = component.withoutRequestParameter.parameters.filter {
            if case .name = $0 { return component.name != "@query-param" }
            return true
        }
        guard others.isEmpty else {
            throw .invalidComponent(component.description, reason: "a derived component takes no such parameter")
        }
        if component.name == "@status" {
            guard let status = message.statusCode else {
                throw .componentNotInMessage(component.description, reason: "@status is a response's, and this is a request")
            }
            return String(status)
        }
        if component.name == "@signature-params" {
            throw .invalidComponent(component.description, reason: "@signature-params is never a covered component")
        }
        guard let method = message.method, let url = message.url else {
            throw .componentNotInMessage(component.description, reason: "\(component.name) is a request's, and this is a response (mark it ';req' to cover the request's)")
        }
        // Each part of the URL is read only when asked for: Foundation parses it each time.
        var scheme: String { url.scheme?.lowercased() ?? "" }
        var path: String {
            let path = url.path(percentEncoded: true)
            return path.isEmpty ? "/" : path
        }
        var query: String? { url.query(percentEncoded: true) }
        switch component.name {
        case "@method": return method
        case "@scheme": return scheme
        case "@authority": return authority(of: url)
        case "@target-uri": return "\(scheme)://\(authority(of: url))\(path)\(query.map { "?" + $0 } ?? "")"
        case "@request-target": return path + (query.map { "?" + $0 } ?? "")
        case "@path": return path
        case "@query": return "?" + (query ?? "")
        case "@query-param": return try queryParameter(component, in: query ?? "")
        default: throw .invalidComponent(component.description, reason: "not a derived component RFC 9421 defines")
        }
    }

    /// Host (lowercased, an IPv6 literal in brackets) and the port unless it is the scheme's.
    private static func authority(of url: URL) -> String {
        let host = (url.host(percentEncoded: true) ?? "").lowercased().inAuthorityForm
        let defaultPort = url.scheme?.lowercased() == "http" ? 80 : 443
        guard let port = url.port, port != defaultPort else { return host }
        return "\(host):\(port)"
    }

    /// The value of `@query-param;name="…"` (§2.2.8): the query parsed as a form
    /// (`+` a space), the value percent-encoded again as a form is (a space `%20`); a name
    /// found twice is ambiguous.
    private static func queryParameter(_ component: HTTPMessageComponent, in query: String) throws(HTTPSignatureError) -> String {
        let names = component.parameters.compactMap { if case .name(let name) = $0 { name } else { nil } }
        guard names.count == 1, let wanted = names.first else {
            throw .invalidComponent(component.description, reason: "@query-param takes one ';name'")
        }
        let values = query.split(separator: "&", omittingEmptySubsequences: true).compactMap { pair -> String? in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard FormPercentEncoding.encode(bytes: formDecoded(parts[0]), space: "%20") == wanted else { return nil }
            return FormPercentEncoding.encode(bytes: formDecoded(parts.count > 1 ? parts[1] : ""), space: "%20")
        }
        guard values.count == 1, let value = values.first else {
            throw values.isEmpty
                ? .componentNotInMessage(component.description, reason: "the query has no parameter '\(wanted)'")
                : .componentNotInMessage(component.description, reason: "the query names '\(wanted)' \(values.count) times (RFC 9421 §2.2.8: such a parameter is not covered)")
        }
        return value
    }

    private static func formDecoded(_ text: Substring) -> [UInt8] {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), utf8.count >= 2, utf8.prefix(2).allSatisfy(\.isHexDigit),
                      let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }

    private static func fieldValue(of component: HTTPMessageComponent, in message: HTTPSignatureMessage) throws(HTTPSignatureError) -> String {
        let lines = message.fieldValues(component.name).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }
        guard !lines.isEmpty else {
            throw .componentNotInMessage(component.description, reason: "the message has no field '\(component.name)'")
        }
        let parameters = component.withoutRequestParameter.parameters
        switch parameters {
        case []:
            return lines.joined(separator: ", ")
        case [.byteSequence]:
            return lines.map { ":" + Data($0.utf8).base64EncodedString() + ":" }.joined(separator: ", ")
        case [.structured]:
            return try structured(lines.joined(separator: ", "), component: component)
        default:
            let others = parameters.filter { $0 != .structured }
            if others.count == 1, case .key(let member) = others[0], parameters.count <= 2 {
                return try dictionaryMember(member, of: lines.joined(separator: ", "), component: component)
            }
            throw .invalidComponent(component.description, reason: "a field takes ';sf', ';key' or ';bs' (not ';bs' with the others), and ';req'")
        }
    }

    /// The field re-serialized as a dictionary, else as a list (an item is a list of one).
    private static func structured(_ value: String, component: HTTPMessageComponent) throws(HTTPSignatureError) -> String {
        var serializer = StructuredFieldValueSerializer()
        var parser = StructuredFieldValueParser(Array(value.utf8))
        if let dictionary = try? parser.parseDictionaryFieldValue(), let bytes = try? serializer.writeDictionaryFieldValue(dictionary) {
            return String(decoding: bytes, as: UTF8.self)
        }
        parser = StructuredFieldValueParser(Array(value.utf8))
        if let list = try? parser.parseListFieldValue(), let bytes = try? serializer.writeListFieldValue(list) {
            return String(decoding: bytes, as: UTF8.self)
        }
        throw .componentNotInMessage(component.description, reason: "the field is not a structured field (RFC 8941)")
    }

    private static func dictionaryMember(_ member: String, of value: String, component: HTTPMessageComponent) throws(HTTPSignatureError) -> String {
        var parser = StructuredFieldValueParser(Array(value.utf8))
        guard let dictionary = try? parser.parseDictionaryFieldValue() else {
            throw .componentNotInMessage(component.description, reason: "the field is not a structured dictionary (RFC 8941)")
        }
        guard let found = dictionary[member] else {
            throw .componentNotInMessage(component.description, reason: "the dictionary has no member '\(member)'")
        }
        var serializer = StructuredFieldValueSerializer()
        let bytes: [UInt8]?
        switch found {
        case .item(let item): bytes = try? serializer.writeItemFieldValue(item)
        case .innerList: bytes = try? serializer.writeListFieldValue([found])
        }
        guard let bytes else {
            throw .componentNotInMessage(component.description, reason: "the member '\(member)' cannot be serialized")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
