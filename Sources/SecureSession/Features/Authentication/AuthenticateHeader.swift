/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1): a scheme and its
/// parameters (`realm`, `nonce`, `qop`, `algorithm`, `opaque`, …).
struct AuthenticateHeader: Sendable, Equatable {
    let scheme: String
    let parameters: [String: String]

    /// Every challenge of every `WWW-Authenticate` field value, in order.
    static func parse(_ values: [String]) -> [AuthenticateHeader] {
        values.flatMap(parseField)
    }

    /// Splits one field value: `Digest realm="a", nonce="b", Basic realm="c"`.
    private static func parseField(_ value: String) -> [AuthenticateHeader] {
        var challenges: [AuthenticateHeader] = []
        var scanner = Substring(value)
        while true {
            scanner = scanner.drop { $0 == " " || $0 == "," }
            guard !scanner.isEmpty else { break }
            let scheme = scanner.prefix { $0 != " " && $0 != "," }
            scanner = scanner.dropFirst(scheme.count)
            var parameters: [String: String] = [:]
            while true {
                let rest = scanner.drop { $0 == " " || $0 == "," }
                // A parameter is `name=value`; a bare token starts the next challenge.
                let name = rest.prefix { $0 != "=" && $0 != " " && $0 != "," }
                let afterName = rest.dropFirst(name.count).drop { $0 == " " }
                guard !name.isEmpty, afterName.first == "=" else { break }
                var valueStart = afterName.dropFirst().drop { $0 == " " }
                var parsed = ""
                if valueStart.first == "\"" {
                    valueStart = valueStart.dropFirst()
                    var escaped = false
                    var index = valueStart.startIndex
                    while index < valueStart.endIndex {
                        let character = valueStart[index]
                        if escaped {
                            parsed.append(character)
                            escaped = false
                        } else if character == "\\" {
                            escaped = true
                        } else if character == "\"" {
                            break
                        } else {
                            parsed.append(character)
                        }
                        index = valueStart.index(after: index)
                    }
                    scanner = index < valueStart.endIndex ? valueStart[valueStart.index(after: index)...] : valueStart[index...]
                } else {
                    let token = valueStart.prefix { $0 != "," && $0 != " " }
                    parsed = String(token)
                    scanner = valueStart.dropFirst(token.count)
                }
                parameters[name.lowercased()] = parsed
            }
            challenges.append(AuthenticateHeader(scheme: scheme.lowercased(), parameters: parameters))
        }
        return challenges
    }
}
