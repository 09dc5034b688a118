import Foundation

extension URL {
    /// The URL as text with its password, if any, replaced by `***`: what logs and error
    /// messages show, so that `https://user:secret@host/` never prints its secret.
    package var redacted: String {
        guard password(percentEncoded: true) != nil,
            var components = URLComponents(url: self, resolvingAgainstBaseURL: false)
        else { return absoluteString }
        components.percentEncodedPassword = "***"
        return components.string ?? absoluteString
    }

    /// The URL as text without the user and password it may carry: what a signed token may name
    /// (a DPoP proof's `htu`, an assertion's `aud`), which would otherwise carry a password in a
    /// JWT that others read and log.
    package var withoutUserInformation: String {
        guard user(percentEncoded: true) != nil || password(percentEncoded: true) != nil,
            var components = URLComponents(url: self, resolvingAgainstBaseURL: true)
        else { return absoluteString }
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        return components.string ?? absoluteString
    }
}
