import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Reachability
import TransportSecurity
import TransportSecurityNIO

extension SecureSession {
    /// Where a redirect leads: its one `Location`. Several that differ (a server's bug, or a
    /// header injected beside the server's own) leave it to chance which one a client follows,
    /// so they are refused, as browsers refuse them.
    static func location(of head: HTTPResponseHead) throws -> String? {
        let locations = head.headers["Location"]
        guard let first = locations.first else { return nil }
        if let other = locations.first(where: { $0 != first }) {
            throw SecureSessionError.invalidResponse("the redirect names \(locations.count) different Locations ('\(first)', '\(other)'): which one to follow is left to chance")
        }
        return first
    }

    /// The request a `status` redirect to `location` makes of `request`, or why it is not
    /// followed: a downgrade to http, a body of credentials or an exchange with an authorization
    /// server sent to another origin, an answer that must be signed traded for one that need not.
    func redirected(_ request: SecureRequest, status: Int, location: String) throws -> SecureRequest {
        guard let given = URL(string: location, relativeTo: request.url)?.absoluteURL else {
            throw SecureSessionError.invalidResponse("the redirect Location '\(location)' is not a URL")
        }
        // A known HSTS host is reached over https whatever the redirect says.
        let target = upgradedByHSTS(given)
        if request.url.scheme?.lowercased() == "https", target.scheme?.lowercased() == "http" {
            throw SecureSessionError.insecureRedirect(from: request.url, to: target)
        }
        var next = request
        next.url = target
        // 303, and 301/302 after a POST, become a GET without a body (as browsers and URLSession
        // do); a HEAD stays a HEAD (RFC 9110 §15.4.4: the retrieval is a GET or a HEAD).
        if (status == 303 && request.method != .head) || ([301, 302].contains(status) && request.method == .post) {
            next.method = .get
            next.content = nil
            next.headers.removeAll { ["content-type", "content-length", "content-digest"].contains($0.name.lowercased()) }
        }
        let leavesOrigin = ServerName.of(target) != ServerName.of(request.url)
        if leavesOrigin, !request.followsRedirectsToOtherOrigins {
            throw SecureSessionError.redirectRefused(
                status: status, from: request.url, to: target,
                reason: "an exchange with the authorization server (a token request, its metadata) follows no redirect to another origin, which would be handed the client's credentials"
            )
        }
        if leavesOrigin, request.bodyCarriesCredentials, next.hasBody {
            throw SecureSessionError.redirectRefused(
                status: status, from: request.url, to: target,
                reason: "the request's body carries credentials, and following would send it to another origin"
            )
        }
        // An answer that must be signed is not traded for one that need not be.
        if let check = request.arrivalCheck, check.requires(request.url), !check.requires(target) {
            throw SecureSessionError.redirectRefused(
                status: status, from: request.url, to: target,
                reason: "the responses of \(request.url.host(percentEncoded: false) ?? "the host") must be signed (responses.signatures), and those of \(target.host(percentEncoded: false) ?? "the target") need not be"
            )
        }
        // Credentials and cookies stay with their origin (every field that carries one:
        // ``CredentialFields``, an API key among them): not carried to another host, nor to
        // another port or scheme of the same host (another server: curl's CVE-2022-27776); a
        // caller's Proxy-Authorization neither (the new URL may go through another proxy, or
        // through none, and an https one carries it inside the tunnel, to the server). Nor does
        // a Host field the caller wrote: it named the first server's virtual host, and the new
        // server is named by its own authority (as curl drops a custom Host on a redirect).
        // A DPoP proof is a credential too (RFC 9449), and so is an HTTP message signature
        // (RFC 9421), which another server could replay to the first. The request's own client
        // identity was given for its server: another one does not learn who the client is.
        if leavesOrigin {
            next.headers.removeAll {
                ["host", "signature", "signature-input"].contains($0.name.lowercased()) || CredentialFields.carriesCredential($0.name)
            }
            next.clientIdentity = nil
        }
        return next
    }
}
