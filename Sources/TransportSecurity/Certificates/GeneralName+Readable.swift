import X509

extension GeneralName {
    /// The name as a person reads it: `DNS:example.com`, `IP:10.0.0.0/255.0.0.0` (an address and
    /// mask of a name constraint), `email:`, `URI:`, `dirName:` and so on.
    var readable: String {
        switch self {
        case .dnsName(let name): return "DNS:\(name)"
        case .rfc822Name(let mailbox): return "email:\(mailbox)"
        case .uniformResourceIdentifier(let uri): return "URI:\(uri)"
        case .directoryName(let name): return "dirName:\(name)"
        case .ipAddress(let bytes):
            let bytes = Array(bytes.bytes)
            if bytes.count == 8 || bytes.count == 32 {
                let half = bytes.count / 2
                return "IP:\(ServerHost.addressText(Array(bytes.prefix(half))))/\(ServerHost.addressText(Array(bytes.suffix(half))))"
            }
            return "IP:\(ServerHost.addressText(bytes))"
        case .otherName(let other): return "otherName:\(other.typeID)"
        case .registeredID(let oid): return "registeredID:\(oid)"
        case .x400Address: return "x400Address"
        case .ediPartyName: return "ediPartyName"
        }
    }
}
