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
    func requestHead(_ request: SecureRequest, key: ConnectionKey, body: RequestBodySource?) -> HTTPRequestHead {
        let defaultPort = key.isSecure ? 443 : 80
        let hostField = key.host.utf8.contains(UInt8(ascii: ":")) && ServerHost(key.host).isIPAddress ? "[\(key.host)]" : key.host
        let authority = key.port == defaultPort ? hostField : "\(hostField):\(key.port)"
        // `Host` first, as RFC 9110 §7.2 asks of user agents (unless the caller set one).
        var fields: [(String, String)] = []
        fields.reserveCapacity(request.headers.count + 5)
        if !request.headers.contains(where: { $0.name.equalsIgnoringASCIICase("Host") }) { fields.append(("Host", authority)) }
        for field in request.headers { fields.append((field.name, field.value)) }
        var headers = HTTPHeaders(fields)
        var target = request.requestTarget
        // Cleartext through a proxy: the request names its server (absolute form, RFC 9112
        // §3.2.2) and carries the proxy's credentials. (TLS goes through a tunnel instead.)
        if !key.isSecure, let proxy = key.proxy, proxy.speaksHTTP {
            target = "http://\(authority)\(target)"
            if let authorization = proxy.authorization { headers.replaceOrAdd(name: "Proxy-Authorization", value: authorization) }
        }
        // The body's framing is the session's: a caller's Content-Length or Transfer-Encoding
        // that the body does not match (ten bytes announced on a GET without a body) would
        // leave the server waiting for bytes that never come, then read the next request on
        // the connection as them.
        headers.remove(name: "Content-Length")
        headers.remove(name: "Transfer-Encoding")
        if let body, body.length == nil {
            // Of unknown length: chunked (HTTP/2 drops the field and sends DATA frames).
            headers.add(name: "Transfer-Encoding", value: "chunked")
        } else if let bodyLength = body?.length {
            headers.add(name: "Content-Length", value: String(bodyLength))
        } else if [.post, .put, .patch].contains(request.method) {
            headers.add(name: "Content-Length", value: "0")
        }
        if !headers.contains(name: "User-Agent") { headers.add(name: "User-Agent", value: "TransportSecurity/1") }
        // Said although HTTP/1.1 keeps connections alive anyway: Apache then tells how long it
        // keeps them idle (`Keep-Alive: timeout=N`, ``KeepAliveHint``), which it says only to
        // clients that ask. HTTP/2 drops the field.
        if !headers.contains(name: "Connection") { headers.add(name: "Connection", value: "keep-alive") }
        return HTTPRequestHead(version: .http1_1, method: NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue), uri: target, headers: headers)
    }
}
