import Foundation
import OAuth

extension AuthorizationServerMetadata {
    /// The metadata of `issuer`, read through `session` from the first of its ``locations(of:)``
    /// that answers `200`.
    /// - Throws: `OAuthError.unusableMetadata` when neither answers, or the answer is no
    ///   JSON object of metadata; the session's errors (a rejected certificate among them).
    static func discover(issuer: URL, through session: SecureSession) async throws -> (metadata: AuthorizationServerMetadata, location: URL) {
        guard issuer.scheme?.lowercased() == "https" else { throw OAuthError.unusableMetadata(issuer, "the issuer is not an https URL") }
        var statuses: [String] = []
        for location in locations(of: issuer) {
            let request = SecureRequest(url: location, headers: [("Accept", "application/json")]).toAuthorizationServer
            let response = try await session.send(request)
            guard response.statusCode == 200 else {
                statuses.append("\(location.path): HTTP \(response.statusCode)")
                continue
            }
            guard let metadata = try? JSONDecoder().decode(AuthorizationServerMetadata.self, from: response.body) else {
                throw OAuthError.unusableMetadata(location, "not a JSON object of authorization server metadata")
            }
            return (metadata, location)
        }
        throw OAuthError.unusableMetadata(issuer, "no metadata found (\(statuses.joined(separator: ", ")))")
    }
}
