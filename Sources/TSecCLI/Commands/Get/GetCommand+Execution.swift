import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import SecureSession
import TransportSecurity
import TransportSecurityNIO

extension GetCommand {
    /// Makes the request and writes the response; returns the exit status of ``ExitStatus`` that
    /// fits the outcome (0 for any response, 22 for one of 400 or more under `-f`).
    public func execute(output terminal: CommandOutput) async -> Int32 {
        let request: SecureRequest
        var configuration: SecureSessionConfiguration
        let writeOut: WriteOutFormat?
        let revocationLists: [CertificateRevocationList]
        do {
            writeOut = try loadWriteOut()
            request = try makeRequest()
            configuration = try makeConfiguration(reportingTo: terminal)
            revocationLists = try revocation.loadLists()
            configuration.logger = logger(to: terminal)
            if outputOptions.verbose { configuration.features.requestHeadObserver = { head in Self.tell(head, to: terminal) } }
            configuration.responses.decompression = requestOptions.compressed ? .enabled() : .disabled
            configuration.features.cookieJar = try makeCookieJar(logger: configuration.logger)
            configuration.features.interceptor = retrying.makePolicy(method: request.method.rawValue, failsOnHTTPErrors: outputOptions.fail || outputOptions.failWithBody)
            configuration.responses.signatures = try responseVerification.makeRequirement()
            configuration.features.hsts = try loadHSTS(logger: configuration.logger)
            configuration.connections.expectContinue = connectionOptions.expect100Timeout == 0 ? nil : ExpectContinue(timeout: TimeLimit.duration(connectionOptions.expect100Timeout))
            // The files written at the end are checked first: a request is not sent for what
            // could not be kept.
            for file in [stateOptions.cookieJar, stateOptions.hsts, outputOptions.dumpHeader == "-" ? nil : outputOptions.dumpHeader].compactMap({ $0 }) where !file.isEmpty { try FileWriting.checkReplaceable(file) }
            // Last, so that a password is asked for only when everything else is in order.
            try authenticationOptions.user.map { try UserArgument($0) }?.store(in: configuration.features.credentialStore, for: request.url)
        } catch {
            complain("tsec get: \(error)", to: terminal)
            return ExitStatus.usageOrInput
        }
        // --revocation and --fetch-intermediates fetch through a session of their own, reaching
        // the network as this one does. Intermediates are fetched first: revocation is checked
        // on the path they complete.
        let sideSession = revocation.fetches || trustOptions.fetchIntermediates ? SecureSession(configuration: sideFetching(like: configuration)) : nil
        if trustOptions.fetchIntermediates, let sideSession {
            configuration.tls.trustEvaluator = AnyServerTrustEvaluator(
                IntermediateFetchingEvaluator(configuration.tls.trustEvaluator, fetcher: SessionIssuerFetcher(session: sideSession))
            )
        }
        configuration.tls.trustEvaluator = revocation.evaluator(
            around: configuration.tls.trustEvaluator,
            lists: revocationLists,
            fetcher: revocation.fetches ? sideSession.map { SessionRevocationFetcher(session: $0) } : nil
        )
        // The token endpoint is judged as the URL is, through a session without the token.
        let tokenSession = oauth.isRequested ? SecureSession(configuration: tokenFetching(like: configuration)) : nil
        do {
            if let tokenSession,
                let interceptor = try oauth.makeInterceptor(for: request.url, tokenSession: tokenSession, hasIdentity: configuration.tls.clientIdentity != nil)
            {
                configuration.features.interceptor = ChainedInterceptor([interceptor] + [configuration.features.interceptor].compactMap { $0 })
            }
            // Last: the signature covers what the others added (a token, a DPoP proof).
            if let signer = try signing.makeSigner() {
                configuration.features.interceptor = ChainedInterceptor([configuration.features.interceptor].compactMap { $0 } + [signer])
            }
        } catch {
            complain("tsec get: \(error)", to: terminal)
            await tokenSession?.shutdown()
            await sideSession?.shutdown()
            return ExitStatus.usageOrInput
        }
        let session = SecureSession(configuration: configuration)
        let status = await fetch(request, with: session, writeOut: writeOut, to: terminal)
        await session.shutdown()
        await tokenSession?.shutdown()
        await sideSession?.shutdown()
        // What the run learnt is kept: the HSTS hosts always, the cookies when there are some
        // (as curl, a jar with no cookie leaves the file as it is: a failed request does not
        // empty it).
        var kept: [(file: String, text: String)] = []
        if let hsts = stateOptions.hsts, !hsts.isEmpty, let store = configuration.features.hsts { kept.append((hsts, CurlHSTSFile.text(of: store.entries()))) }
        if let cookieJar = stateOptions.cookieJar, let jar = configuration.features.cookieJar, !jar.cookies.isEmpty {
            var writable: [Cookie] = []
            for cookie in jar.cookies {
                guard let problem = NetscapeCookieFile.unwritable(cookie) else {
                    writable.append(cookie)
                    continue
                }
                complain("tsec get: \(cookieJar): \(problem)", to: terminal)
            }
            kept.append((cookieJar, NetscapeCookieFile.text(of: writable)))
        }
        for (file, text) in kept {
            do {
                try FileWriting.replaceOwnerOnly(file, contents: Data(text.utf8))
            } catch {
                complain("tsec get: \(error)", to: terminal)
                return status == ExitStatus.success ? ExitStatus.usageOrInput : status
            }
        }
        return status
    }

    /// An error message on standard error, unless `-s` (without `-S`) silences it.
    func complain(_ text: String, to terminal: CommandOutput) {
        if !outputOptions.silent || outputOptions.showError { terminal.error(text) }
    }

    /// With `-v`, every log line of the session on standard error; otherwise none (the command
    /// reports the outcome itself).
    func logger(to terminal: CommandOutput) -> Logger {
        Logger(label: "tsec.get") { _ in
            outputOptions.verbose ? CommandOutputLogHandler(output: terminal, logLevel: .debug) as any LogHandler : SwiftLogNoOpLogHandler()
        }
    }
}
