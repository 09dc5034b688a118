import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import SecureSession
import TransportSecurity
import TransportSecurityNIO

extension GetCommand {
    /// Refuses option combinations that make no sense, before anything is read.
    public func validate() throws {
        try TimeLimit.validate(connectionOptions.maxTime)
        try TimeLimit.validate(connectionOptions.connectTimeout, option: "--connect-timeout")
        if connectionOptions.expect100Timeout != 0 { try TimeLimit.validate(connectionOptions.expect100Timeout, option: "--expect100-timeout") }
        if let maxFilesize = outputOptions.maxFilesize, maxFilesize < 0 { throw ValidationError("--max-filesize must not be negative") }
        let hasData = !dataParts.isEmpty
        if outputOptions.remoteName, outputOptions.outputFile != nil { throw ValidationError("-O names the output file after the URL, -o names it: give one of them") }
        if outputOptions.remoteName, Self.remoteFileName(of: url) == nil {
            throw ValidationError("-O: the URL '\(url)' has no file name at the end of its path (use -o FILE)")
        }
        if outputOptions.fail, outputOptions.failWithBody { throw ValidationError("-f prints no body for a status of 400 or more, --fail-with-body prints it: give one of them") }
        if connectionOptions.tls12OrLater, connectionOptions.tls13OrLater { throw ValidationError("--tlsv1.2 and --tlsv1.3 each set the lowest TLS version: give one of them") }
        if let tlsMax = connectionOptions.tlsMax, !["1.2", "1.3", "default"].contains(tlsMax) {
            throw ValidationError("--tls-max takes 1.2, 1.3 or default, not '\(tlsMax)' (TLS 1.0 and 1.1 only through a transport rule's NSExceptionMinimumTLSVersion)")
        }
        if connectionOptions.tls13OrLater, connectionOptions.tlsMax == "1.2" { throw ValidationError("--tlsv1.3 and --tls-max 1.2 leave no TLS version") }
        if outputOptions.dumpHeader == "-", outputOptions.json { throw ValidationError("-D - writes the header fields to standard output, where --json writes its report: give -D a file") }
        if authenticationOptions.bearerToken != nil, authenticationOptions.user != nil { throw ValidationError("--oauth2-bearer and -u both answer for the user: give one of them") }
        if oauth.isRequested, authenticationOptions.bearerToken != nil || authenticationOptions.user != nil || requestOptions.header.contains(where: { $0.lowercased().hasPrefix("authorization:") }) {
            throw ValidationError("--oauth2-token-url (or --oauth2-issuer) gets the request's token: it goes with none of --oauth2-bearer, -u and -H 'Authorization: …'")
        }
        if authenticationOptions.bearerToken?.contains(where: { $0.isNewline }) == true { throw ValidationError("--oauth2-bearer: the token holds a line break") }
        if !requestOptions.form.isEmpty, hasData { throw ValidationError("-F (a multipart form) and -d (a body of its own) cannot go together") }
        if requestOptions.uploadFile != nil, !requestOptions.form.isEmpty || hasData { throw ValidationError("-T (a file as the body) goes with neither -d nor -F") }
        if requestOptions.dataInQuery, !requestOptions.form.isEmpty || requestOptions.uploadFile != nil { throw ValidationError("-G/--get puts the data options' parts in the URL: it goes with neither -F nor -T") }
        if let malformed = requestOptions.form.first(where: { !$0.contains("=") || $0.hasPrefix("=") }) {
            throw ValidationError("-F '\(malformed)' is not NAME=VALUE, NAME=@FILE or NAME=<FILE")
        }
        if let malformed = requestOptions.header.first(where: { !$0.contains(":") }) {
            throw ValidationError("-H '\(malformed)' is not 'Name: value'")
        }
        if trustOptions.cacert != nil, policy.systemRoots != nil { throw ValidationError("--cacert is curl's name for --system-roots: give one of them") }
        if outputOptions.headOnly, (hasData && !requestOptions.dataInQuery) || !requestOptions.form.isEmpty || requestOptions.uploadFile != nil || requestOptions.method != "GET" {
            throw ValidationError("-I/--head sends a HEAD request: it goes with none of -X, -d (but with -G), -F or -T")
        }
        guard (0...100).contains(connectionOptions.maxRedirs) else { throw ValidationError("--max-redirs must be from 0 to 100, not \(connectionOptions.maxRedirs)") }
        if let continueAt = outputOptions.continueAt {
            guard continueAt == "-" else { throw ValidationError("-C/--continue-at takes '-' (continue from the end of the --output file), not '\(continueAt)'") }
            guard output != nil else { throw ValidationError("-C - continues the file of -o/--output, and there is none") }
            guard !requestOptions.compressed else { throw ValidationError("-C - cannot go with --compressed: ranges count the compressed bytes") }
        }
        if stateOptions.cookieJar?.isEmpty == true { throw ValidationError("-c/--cookie-jar needs a file name") }
        if responseVerification.isRequested, requestOptions.compressed {
            throw ValidationError("--verify-response-key checks the body as it was sent: it does not go with --compressed")
        }
        if responseVerification.isRequested, outputOptions.continueAt != nil {
            throw ValidationError("--verify-response-key checks whole answers: it does not go with -C (the file's first bytes came with no answer to verify)")
        }
        try ResolveOption.validate(connectionOptions.resolve)
    }
}
