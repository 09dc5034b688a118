import Foundation

extension URL {
    /// The user and password written in the URL (`https://user:password@host/`, percent-decoded),
    /// answering an HTTP Basic or Digest challenge of the URL's server when nothing else does (as
    /// `URLSession` uses them). A user without a password is not a credential.
    var userCredential: Credential? {
        guard let user = user(percentEncoded: false), !user.isEmpty, let password = password(percentEncoded: false) else {
            return nil
        }
        return .user(user, password: password)
    }
}
