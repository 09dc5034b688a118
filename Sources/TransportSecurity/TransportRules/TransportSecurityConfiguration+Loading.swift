import Foundation

/// Why a transport-security configuration could not be read at all.
public struct TransportSecurityConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The file or data.
    public let source: String
    /// Why.
    public let reason: String

    /// Creates an error.
    public init(source: String, reason: String) {
        self.source = source
        self.reason = reason
    }

    /// `SOURCE: reason`.
    public var description: String { "\(source): \(reason)" }
}

extension TransportSecurityConfiguration {
    /// Reads a configuration from a file: an Info.plist (XML or binary) holding an
    /// `NSAppTransportSecurity` dictionary (and optionally TrustKit's `TSKConfiguration`), that
    /// dictionary alone, or JSON with the same keys.
    /// - Returns: The configuration and every issue found, each with its key path. Malformed
    ///   values are ignored or replaced by the stricter choice, never silently accepted.
    /// - Throws: ``TransportSecurityConfigurationError`` when the file cannot be read or is
    ///   neither a property list nor JSON with a dictionary at the top.
    public static func load(contentsOf path: String) throws -> (TransportSecurityConfiguration, [ConfigurationIssue]) {
        let data: Data
        do {
            data = try InputFile.read(path)
        } catch {
            throw TransportSecurityConfigurationError(source: path, reason: "the file cannot be read: \(error)")
        }
        return try load(from: data, source: path)
    }

    /// Reads a configuration from property-list (XML or binary) or JSON bytes; see
    /// ``load(contentsOf:)``.
    public static func load(from data: Data, source: String = "configuration") throws -> (TransportSecurityConfiguration, [ConfigurationIssue]) {
        load(root: try dictionary(from: data, source: source))
    }

    /// Reads a configuration from a top-level dictionary already parsed by
    /// ``dictionary(from:source:)``; see ``load(contentsOf:)``.
    public static func load(root: [String: Any]) -> (TransportSecurityConfiguration, [ConfigurationIssue]) {
        var reader = ConfigurationReader()
        let configuration = reader.read(root: root)
        return (configuration, reader.issues)
    }

    /// The top-level dictionary of property-list (XML or binary) or JSON bytes, read as
    /// ``load(from:source:)`` reads it (JSON when the first byte that is not white space opens
    /// an object or array), for tools that vary a configuration before loading it.
    /// - Throws: ``TransportSecurityConfigurationError`` as ``load(from:source:)`` does.
    public static func dictionary(from data: Data, source: String = "configuration") throws -> [String: Any] {
        guard !data.isEmpty else { throw TransportSecurityConfigurationError(source: source, reason: "the configuration is empty") }
        let root: Any
        let firstByte = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) })
        let isJSON = firstByte == UInt8(ascii: "{") || firstByte == UInt8(ascii: "[")
        do {
            try BinaryPropertyListGuard.check(data)
        } catch {
            throw TransportSecurityConfigurationError(source: source, reason: "not a valid property list (binary): \(error.reason)")
        }
        do {
            if isJSON {
                root = try JSONSerialization.jsonObject(with: data)
            } else {
                root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            }
        } catch {
            let kind = isJSON ? "not valid JSON" : "not a valid property list (XML or binary)"
            throw TransportSecurityConfigurationError(source: source, reason: "\(kind): \(DecodingErrorText.describe(error))")
        }
        guard let dictionary = root as? [String: Any] else {
            throw TransportSecurityConfigurationError(source: source, reason: "the top level is not a dictionary")
        }
        return dictionary
    }
}

/// Reads the dictionaries, recording an issue for every value it cannot take as written.
struct ConfigurationReader {
    private(set) var issues: [ConfigurationIssue] = []

    private static let globalKeys: Set<String> = [
        "NSAllowsArbitraryLoads", "NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsInWebContent",
        "NSAllowsLocalNetworking", "NSExceptionDomains", "NSPinnedDomains", "TSKPinnedDomains", "NSRequiresNIAPTLSPackageVersion",
    ]
    private static let exceptionKeys: Set<String> = [
        "NSIncludesSubdomains", "NSExceptionAllowsInsecureHTTPLoads", "NSExceptionMinimumTLSVersion",
        "NSExceptionRequiresForwardSecrecy", "NSRequiresCertificateTransparency", "NSExceptionRequiresNIAPTLSPackageVersion",
        "NSThirdPartyExceptionAllowsInsecureHTTPLoads", "NSThirdPartyExceptionMinimumTLSVersion", "NSThirdPartyExceptionRequiresForwardSecrecy",
    ]
    private static let pinnedKeys: Set<String> = ["NSIncludesSubdomains", "NSPinnedCAIdentities", "NSPinnedLeafIdentities"]
    private static let pinSetKeys: Set<String> = [
        "TSKPublicKeyHashes", "TSKIncludeSubdomains", "TSKEnforcePinning", "TSKReportUris", "TSKExpirationDate",
        "TSKExcludeSubdomainFromParentPolicy", "TSKDisableDefaultReportUri",
    ]

    mutating func read(root: [String: Any]) -> TransportSecurityConfiguration {
        var configuration = TransportSecurityConfiguration()
        let ats: [String: Any]
        let atsPath: String
        if let nested = root["NSAppTransportSecurity"] {
            guard let dictionary = nested as? [String: Any] else {
                issue(.error, "NSAppTransportSecurity", "must be a dictionary; ignored, so ATS's defaults apply")
                return configuration
            }
            ats = dictionary
            atsPath = "NSAppTransportSecurity"
        } else {
            ats = root
            atsPath = ""
        }
        configuration.keyPaths.ats = atsPath
        configuration.keyPaths.pinSets = configuration.keyPaths.ats("TSKPinnedDomains")
        func path(_ key: String) -> String { configuration.keyPaths.ats(key) }
        // A bare dictionary holds ATS keys only; an Info.plist without NSAppTransportSecurity
        // holds the app's other keys, of which only NS… and TSK… ones are suspicious.
        let isInfoPlist = atsPath.isEmpty && root.keys.contains { $0.hasPrefix("CFBundle") }
        for key in ats.keys.sorted() where !Self.globalKeys.contains(key) && key != "TSKConfiguration" {
            if !isInfoPlist || key.hasPrefix("NS") || key.hasPrefix("TSK") { issue(.warning, path(key), "unknown key; ignored") }
        }
        configuration.allowsArbitraryLoads = bool(ats, "NSAllowsArbitraryLoads", path: atsPath)
        configuration.allowsArbitraryLoadsForMedia = bool(ats, "NSAllowsArbitraryLoadsForMedia", path: atsPath)
        configuration.allowsArbitraryLoadsInWebContent = bool(ats, "NSAllowsArbitraryLoadsInWebContent", path: atsPath)
        configuration.allowsLocalNetworking = bool(ats, "NSAllowsLocalNetworking", path: atsPath)
        if let domains = dictionary(ats, "NSExceptionDomains", path: atsPath) {
            configuration.exceptionDomains = domains.keys.sorted().compactMap { exception($0, domains[$0] as Any, path: path("NSExceptionDomains")) }
        }
        if let domains = dictionary(ats, "NSPinnedDomains", path: atsPath) {
            configuration.pinnedDomains = domains.keys.sorted().compactMap { pinnedDomain($0, domains[$0] as Any, path: path("NSPinnedDomains")) }
        }
        // TrustKit's pin sets: in the ATS dictionary, or where TrustKit reads them (TSKConfiguration).
        var pinSetSources: [(String, Any)] = []
        if let sets = ats["TSKPinnedDomains"] { pinSetSources.append((path("TSKPinnedDomains"), sets)) }
        if let trustKit = root["TSKConfiguration"] {
            if let trustKit = trustKit as? [String: Any] {
                if let sets = trustKit["TSKPinnedDomains"] {
                    pinSetSources.append(("TSKConfiguration.TSKPinnedDomains", sets))
                    configuration.keyPaths.pinSets = "TSKConfiguration.TSKPinnedDomains"
                }
            } else {
                issue(.error, "TSKConfiguration", "must be a dictionary; ignored")
            }
        }
        for (setsPath, value) in pinSetSources {
            guard let sets = value as? [String: Any] else {
                issue(.error, setsPath, "must be a dictionary of domains; ignored")
                continue
            }
            configuration.pinSets += sets.keys.sorted().compactMap { pinSet($0, sets[$0] as Any, path: setsPath) }
        }
        return configuration
    }

    // MARK: - Entries

    /// The keys seen so far in each section, to report two keys that name the same domain.
    private var seenKeys: [String: [DomainKey: String]] = [:]

    private mutating func domainKey(_ text: String, section: String) -> DomainKey? {
        let path = "\(section).\(text)"
        let key: DomainKey
        do {
            key = try DomainKey.parse(text)
        } catch {
            issue(.error, path, "\(error); the entry never matches")
            return nil
        }
        if text != text.lowercased() { issue(.warning, path, "keys should be lowercase; compared case-insensitively") }
        if let earlier = seenKeys[section]?[key] {
            issue(.error, path, "names the same \(key) as \(section).\(earlier): one of the two entries never applies")
        }
        seenKeys[section, default: [:]][key] = text
        return key
    }

    private mutating func exception(_ name: String, _ value: Any, path parent: String) -> ExceptionDomain? {
        let path = "\(parent).\(name)"
        guard let key = domainKey(name, section: parent) else { return nil }
        var entry = ExceptionDomain(key: key)
        guard let fields = value as? [String: Any] else {
            // Fail closed: the entry still overrides the global keys, with ATS's strict defaults.
            issue(.error, path, "must be a dictionary; treated as an empty entry (ATS's defaults)")
            return entry
        }
        unknownKeys(fields, allowed: Self.exceptionKeys, path: path)
        entry.includesSubdomains = bool(fields, "NSIncludesSubdomains", path: path) ?? false
        if case .dnsName = key {} else if entry.includesSubdomains {
            issue(.warning, "\(path).NSIncludesSubdomains", "has no effect on an IP address or range")
        }
        entry.allowsInsecureHTTPLoads = bool(fields, "NSExceptionAllowsInsecureHTTPLoads", path: path) ?? false
        entry.requiresForwardSecrecy = bool(fields, "NSExceptionRequiresForwardSecrecy", path: path) ?? true
        entry.requiresCertificateTransparency = bool(fields, "NSRequiresCertificateTransparency", path: path) ?? false
        if let version = string(fields, "NSExceptionMinimumTLSVersion", path: path) {
            if let parsed = TLSProtocolVersion(rawValue: version) {
                entry.minimumTLSVersion = parsed
            } else {
                issue(.error, "\(path).NSExceptionMinimumTLSVersion", "'\(version)' is not one of TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3; TLSv1.2 applies")
            }
        }
        return entry
    }

    private mutating func pinnedDomain(_ name: String, _ value: Any, path parent: String) -> PinnedDomain? {
        let path = "\(parent).\(name)"
        guard let key = domainKey(name, section: parent) else { return nil }
        guard let fields = value as? [String: Any] else {
            issue(.error, path, "must be a dictionary; the domain is pinned to nothing, so every connection to it fails")
            return PinnedDomain(key: key, caIdentities: [])
        }
        unknownKeys(fields, allowed: Self.pinnedKeys, path: path)
        var entry = PinnedDomain(key: key, includesSubdomains: bool(fields, "NSIncludesSubdomains", path: path) ?? false)
        entry.caIdentities = identities(fields, "NSPinnedCAIdentities", path: path)
        entry.leafIdentities = identities(fields, "NSPinnedLeafIdentities", path: path)
        if entry.caIdentities == nil, entry.leafIdentities == nil {
            issue(.warning, path, "has neither NSPinnedCAIdentities nor NSPinnedLeafIdentities; nothing is pinned")
        }
        return entry
    }

    /// An identities array; malformed pins are left out, so an array of only malformed pins
    /// pins nothing and every connection fails (fail closed).
    private mutating func identities(_ fields: [String: Any], _ name: String, path parent: String) -> [SPKIPin]? {
        guard let value = fields[name] else { return nil }
        let path = "\(parent).\(name)"
        guard let array = value as? [Any] else {
            issue(.error, path, "must be an array of dictionaries with SPKI-SHA256-BASE64; pins nothing, so every connection fails")
            return []
        }
        var pins: [SPKIPin] = []
        for (index, element) in array.enumerated() {
            let elementPath = "\(path)[\(index)]"
            guard let dictionary = element as? [String: Any], let text = dictionary["SPKI-SHA256-BASE64"] as? String else {
                issue(.error, elementPath, "must be a dictionary with a SPKI-SHA256-BASE64 string; ignored")
                continue
            }
            do {
                pins.append(try SPKIPin(text))
            } catch {
                issue(.error, "\(elementPath).SPKI-SHA256-BASE64", "\(error); ignored")
            }
        }
        if pins.isEmpty { issue(.error, path, "holds no valid pin; every connection to the domain fails") }
        return pins
    }

    private mutating func pinSet(_ name: String, _ value: Any, path parent: String) -> DomainPinSet? {
        let path = "\(parent).\(name)"
        guard let key = domainKey(name, section: parent) else { return nil }
        var set = DomainPinSet(key: key, pins: [])
        guard let fields = value as? [String: Any] else {
            issue(.error, path, "must be a dictionary; the pin set is refused and blocks the domain")
            set.refusal = "the pin set is not a dictionary"
            return set
        }
        unknownKeys(fields, allowed: Self.pinSetKeys, path: path)
        if let hashes = fields["TSKPublicKeyHashes"] {
            if let array = hashes as? [Any] {
                for (index, element) in array.enumerated() {
                    guard let text = element as? String else {
                        issue(.error, "\(path).TSKPublicKeyHashes[\(index)]", "must be a string; ignored")
                        continue
                    }
                    do {
                        set.pins.append(try SPKIPin(text))
                    } catch {
                        issue(.error, "\(path).TSKPublicKeyHashes[\(index)]", "\(error); ignored")
                    }
                }
            } else {
                issue(.error, "\(path).TSKPublicKeyHashes", "must be an array of base64 SHA-256 SPKI hashes")
            }
        }
        if Set(set.pins).count < 2 {
            set.refusal = "a pin set needs at least two distinct valid pins (a backup pin); it has \(Set(set.pins).count)"
            issue(.error, "\(path).TSKPublicKeyHashes", "\(set.refusal!): the pin set is refused and blocks the domain")
        }
        set.includesSubdomains = bool(fields, "TSKIncludeSubdomains", path: path) ?? false
        set.enforces = bool(fields, "TSKEnforcePinning", path: path) ?? true
        set.excludesSubdomainFromParentPolicy = bool(fields, "TSKExcludeSubdomainFromParentPolicy", path: path) ?? false
        if let uris = fields["TSKReportUris"] {
            if let array = uris as? [Any] {
                for (index, element) in array.enumerated() {
                    if let text = element as? String, let url = URL(string: text), ["https", "http"].contains(url.scheme?.lowercased() ?? "") {
                        set.reportURLs.append(url)
                    } else {
                        issue(.error, "\(path).TSKReportUris[\(index)]", "not an http(s) URL; ignored")
                    }
                }
            } else {
                issue(.error, "\(path).TSKReportUris", "must be an array of URLs; ignored")
            }
        }
        if let expiry = fields["TSKExpirationDate"] {
            if let date = expiry as? Date {
                // A binary plist stores a date as a double: NaN would make every comparison false,
                // so the set would read as expired (not enforced), and Foundation traps printing it.
                if date.timeIntervalSinceReferenceDate.isFinite {
                    set.expirationDate = date
                } else {
                    issue(.error, "\(path).TSKExpirationDate", "is not a time (a binary plist date of NaN or infinity); the pin set never expires")
                }
            } else if let text = expiry as? String, let date = Self.day(text) {
                set.expirationDate = date
            } else {
                issue(.error, "\(path).TSKExpirationDate", "must be a date or a yyyy-MM-dd string; the pin set never expires")
            }
        }
        return set
    }

    private static func day(_ text: String) -> Date? {
        Date(iso8601: text, dateOnly: true)
    }

    // MARK: - Values

    private mutating func unknownKeys(_ fields: [String: Any], allowed: Set<String>, path: String) {
        for key in fields.keys.sorted() where !allowed.contains(key) {
            issue(.warning, "\(path).\(key)", "unknown key; ignored")
        }
    }

    private mutating func bool(_ fields: [String: Any], _ name: String, path: String) -> Bool? {
        guard let value = fields[name] else { return nil }
        if let flag = Self.boolean(value) { return flag }
        issue(.error, path.isEmpty ? name : "\(path).\(name)", "must be a boolean; ignored, so the default applies")
        return nil
    }

    /// A property-list or JSON boolean, and nothing else: Foundation bridges the numbers 1 and
    /// 1.0 to `true`, but ATS ignores a value of the wrong type, so `<integer>1</integer>` or
    /// JSON's `1` must not turn `NSAllowsArbitraryLoads` on.
    static func boolean(_ value: Any) -> Bool? {
        // Property lists give Swift's Bool; JSON (and Apple's Foundation) an NSNumber made
        // from a boolean, whose type encoding is `c`; numbers report `q`, `i` or `d`.
        if type(of: value) == Bool.self { return value as? Bool }
        if let number = value as? NSNumber, number.objCType.pointee == CChar(UInt8(ascii: "c")) { return number.boolValue }
        return nil
    }

    private mutating func string(_ fields: [String: Any], _ name: String, path: String) -> String? {
        guard let value = fields[name] else { return nil }
        if let text = value as? String { return text }
        issue(.error, "\(path).\(name)", "must be a string; ignored, so the default applies")
        return nil
    }

    private mutating func dictionary(_ fields: [String: Any], _ name: String, path: String) -> [String: Any]? {
        guard let value = fields[name] else { return nil }
        if let dictionary = value as? [String: Any] { return dictionary }
        issue(.error, path.isEmpty ? name : "\(path).\(name)", "must be a dictionary; ignored")
        return nil
    }

    private mutating func issue(_ severity: ConfigurationIssue.Severity, _ keyPath: String, _ message: String) {
        issues.append(ConfigurationIssue(severity, keyPath, message))
    }
}
