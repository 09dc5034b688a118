import ArgumentParser
import Foundation
import HTTPMessageSignatures
import Logging
import NIOConcurrencyHelpers
import OAuth
import SecureSession
import TransportSecurity
import TransportSecurityNIO

extension GetCommand {
    func fetch(_ request: SecureRequest, with session: SecureSession, writeOut: WriteOutFormat?, to terminal: CommandOutput) async -> Int32 {
        let printedBytes = PrintedBytes(limit: outputOptions.maxFilesize)
        var transfer = WriteOutFormat.Transfer(response: nil, bodyBytes: 0, trustRejected: false, exitStatus: ExitStatus.success, errorMessage: "")
        // The bytes of the body sent, counted only when -w prints them (a body held in memory
        // then goes part by part).
        let uploaded = NIOLockedValueBox<Int64>(0)
        var request = request
        if writeOut?.reportsUploads == true, request.uploadProgress == nil {
            request.uploadProgress = { progress in uploaded.withLockedValue { $0 = progress.bytesSent } }
        }
        var failure: (any Error)?
        do {
            let response: SecureResponse
            var printed = false
            if let output {
                let before = outputOptions.continueAt == nil ? 0 : Self.size(of: output)
                let held = NIOLockedValueBox<Int64>(0)
                let meter = ProgressLine(output: terminal)
                defer { meter.finish() }
                response = try await session.download(request, to: output, continuingPartialFile: outputOptions.continueAt != nil) { progress in
                    held.withLockedValue { $0 = progress.bytesReceived }
                    meter.show(Self.downloadProgress(progress, to: output))
                }
                meter.finish()
                if outputOptions.verbose { Self.tell(ResponseHead(response), to: terminal) }
                // What this run put in the file (or device): a continued file's own bytes are
                // not counted.
                let after = held.withLockedValue { $0 }
                transfer.bodyBytes = response.statusCode == 206 ? after - before : response.statusCode == 416 ? 0 : after
            } else if !outputOptions.json, !responseVerification.isRequested {
                // Printed as it arrives (after the status line and headers with -i), never held
                // whole; --max-filesize, when given, still ends it.
                let include = outputOptions.include || outputOptions.headOnly || outputOptions.dumpHeader == "-"
                let verbose = outputOptions.verbose
                response = try await session.stream(request) { head in
                    if verbose { Self.tell(head, to: terminal) }
                    if include { Self.print(head, to: terminal) }
                } into: { part in
                    try printedBytes.add(part.count)
                    terminal.bytes(part)
                }
                printed = true
                transfer.bodyBytes = printedBytes.count
            } else {
                response = try await session.send(request)
                if outputOptions.verbose { Self.tell(ResponseHead(response), to: terminal) }
                transfer.bodyBytes = Int64(response.body.count)
            }
            report(response, bodyPrinted: printed, to: terminal)
            if outputOptions.verbose, !response.trailers.isEmpty {
                terminal.errorText(Self.trailerLines(of: response).map { "< \($0)\n" }.joined())
            }
            transfer.response = response
            if let dumpHeader = outputOptions.dumpHeader, dumpHeader != "-" {
                do {
                    let text = Self.headText(ResponseHead(response)) + Self.trailerLines(of: response).map { $0 + "\n" }.joined()
                    try FileWriting.replaceOwnerOnly(dumpHeader, contents: Data(text.utf8))
                } catch {
                    complain("tsec get: -D: \(error)", to: terminal)
                    transfer.exitStatus = ExitStatus.usageOrInput
                }
            }
            if outputOptions.failWithBody, response.statusCode >= 400 {
                let refusal = SecureSessionError.unacceptableStatus(code: response.statusCode, body: Data())
                complain("tsec get: \(refusal)", to: terminal)
                transfer.errorMessage = refusal.description
                transfer.exitStatus = ExitStatus.httpError
            }
        } catch let error as SecureSessionError {
            failure = error
            complain("tsec get: \(error)", to: terminal)
            transfer.errorMessage = error.description
            switch error.code {
            case .trustRejected:
                guard let decision = error.trustDecision else { break }
                if let mismatch = decision.pinMismatch { complain(mismatch.description, to: terminal) }
                if !trustOptions.fetchIntermediates, let hint = Self.fetchingHint(for: decision) { complain(hint, to: terminal) }
                transfer.trustRejected = true
                transfer.exitStatus = decision.decider == .transportRules ? ExitStatus.refusedByTransportRules : ExitStatus.rejected
            case .refusedByTransportRules:
                transfer.exitStatus = ExitStatus.refusedByTransportRules
            case .responseSignatureRejected, .redirectRefused:
                // The server's answer is not trusted, as a rejected certificate is not.
                transfer.exitStatus = ExitStatus.rejected
            case .invalidURL, .invalidRequest, .fileError, .unreadableUpload:
                transfer.exitStatus = ExitStatus.usageOrInput
            case .unacceptableStatus:
                // Only -f makes a status unacceptable.
                transfer.exitStatus = ExitStatus.httpError
            default:
                transfer.exitStatus = ExitStatus.connectionFailure
                // The request may have been processed: the key makes sending it again safe.
                if Self.mayHaveReachedServer(error), !request.method.isIdempotent, let field = request.idempotencyKeyFieldCarried {
                    complain("tsec get: the request may have been processed; send it again with the same key (-H '\(field.name): \(field.value)') and the server processes it once", to: terminal)
                }
            }
        } catch let error as HTTPSignatureError {
            // A covered field the request lacks, a body that cannot be digested: the caller's
            // to mend.
            failure = error
            complain("tsec get: \(error)", to: terminal)
            transfer.errorMessage = error.description
            transfer.exitStatus = ExitStatus.usageOrInput
        } catch let error as OAuthError {
            failure = error
            complain("tsec get: \(error)", to: terminal)
            transfer.errorMessage = error.description
            // Refused credentials or a request that may not carry a token are the caller's to
            // mend, as a wrong passphrase is; a token endpoint or metadata answering nonsense is
            // the server's.
            switch error {
            case .invalidTokenResponse, .unusableMetadata: transfer.exitStatus = ExitStatus.connectionFailure
            default: transfer.exitStatus = ExitStatus.usageOrInput
            }
        } catch {
            failure = error
            complain("tsec get: \(error)", to: terminal)
            transfer.errorMessage = "\(error)"
            transfer.exitStatus = ExitStatus.connectionFailure
        }
        if outputOptions.json, let failure { terminal.line(JSONOutput.encode(GetFailureReport(failure, exitStatus: transfer.exitStatus, idempotencyKey: request.idempotencyKey))) }
        if transfer.response == nil { transfer.bodyBytes = printedBytes.count }
        transfer.uploadedBytes = uploaded.withLockedValue { $0 }
        writeOut?.write(transfer, to: terminal)
        return transfer.exitStatus
    }

    /// The size of the regular file at `path`, 0 when there is none.
    static func size(of path: String) -> Int64 {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular else { return 0 }
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Whether a request that failed with `error` may have reached the server and been processed
    /// with no answer heard: a connection that failed or broke, a timeout, an answer that broke
    /// off or made no sense, an interruption.
    static func mayHaveReachedServer(_ error: SecureSessionError) -> Bool {
        switch error.code {
        case .connectionFailed, .timeout, .invalidResponse, .cancelled: return true
        default: return false
        }
    }

    /// The progress of `tsec get -o` on a terminal: the bytes received, of how many when the
    /// server said, and the file's name (its folder would push the figures off a narrow line).
    static func downloadProgress(_ progress: TransferProgress, to file: String) -> String {
        let received = ByteCountFormatter.string(fromByteCount: progress.bytesReceived, countStyle: .file)
        let expected = progress.expectedBytes.map { " of " + ByteCountFormatter.string(fromByteCount: $0, countStyle: .file) } ?? ""
        let share = progress.fractionCompleted.map { String(format: " (%.0f %%)", $0 * 100) } ?? ""
        return "tsec get: \(received)\(expected)\(share) to \((file as NSString).lastPathComponent)"
    }
}
