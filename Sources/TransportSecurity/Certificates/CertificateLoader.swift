import Foundation
import SwiftASN1

/// Reads certificates from DER, PEM (one block or a bundle), files, directories and bundles.
///
/// Input that does not parse is never skipped silently: each failure is a
/// ``CertificateLoadingError`` naming the file, the position inside a bundle, and the reason.
public enum CertificateLoader {
    /// The file extensions that hold certificates in a directory: `.cer .crt .der .pem`.
    public static let certificateFileExtensions: Set<String> = ["cer", "crt", "der", "pem"]

    /// Parses certificate bytes: DER, PEM with one or more `CERTIFICATE` blocks, or a PKCS#7
    /// certs-only bundle (`.p7b`, `.p7c`: DER, BER, or a PEM `PKCS7` block).
    ///
    /// Other PEM blocks (private keys, parameters) are passed over; a file with none is an error.
    /// - Parameters:
    ///   - bytes: The input.
    ///   - source: A name for the input used in errors (a path, say).
    public static func certificates(from bytes: some Collection<UInt8>, source: String? = nil) throws
        -> [DERCertificate]
    {
        let data = Array(bytes)
        guard data.contains(where: { !Self.isWhitespace($0) }) else {
            throw CertificateLoadingError(source: source, reason: .empty)
        }
        guard let text = String(validating: data, as: UTF8.self), text.contains("-----BEGIN") else {
            if PKCS7CertificateBundle.isBundle(data) {
                return try PKCS7CertificateBundle.certificates(in: data, source: source)
            }
            do {
                return [try DERCertificate(derBytes: data)]
            } catch let error as CertificateLoadingError {
                throw CertificateLoadingError(source: source, reason: error.reason)
            }
        }
        return try certificates(fromPEM: text, source: source)
    }

    /// Reads the certificates of one file (DER, PEM or a PEM bundle).
    /// - Parameter path: The file's path.
    public static func certificates(atPath path: String) throws -> [DERCertificate] {
        let data: Data
        do {
            data = try InputFile.read(path)
        } catch {
            throw CertificateLoadingError(source: path, reason: .unreadable(error.description))
        }
        return try certificates(from: data, source: path)
    }

    /// What loading a directory found: the certificates, and every file that failed.
    public struct DirectoryContents: Sendable {
        /// The certificates of every file that parsed, in file-name order, without duplicates.
        public var certificates: [DERCertificate]
        /// One error per file that did not parse.
        public var failures: [CertificateLoadingError]
    }

    /// Reads every certificate file (`.cer .crt .der .pem`) of a directory, not descending into
    /// subdirectories: the seeds' `certificatesInBundle:`.
    /// - Parameters:
    ///   - path: The directory.
    ///   - extensions: The file extensions to read (case-insensitive); `nil` reads every regular file.
    /// - Throws: When the directory itself cannot be listed.
    public static func certificates(
        inDirectory path: String,
        extensions: Set<String>? = certificateFileExtensions
    ) throws -> DirectoryContents {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CertificateLoadingError(source: path, reason: .unreadable("no such directory"))
        }
        guard isDirectory.boolValue else { throw CertificateLoadingError(source: path, reason: .notADirectory) }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw CertificateLoadingError(source: path, reason: .unreadable(Self.describe(error)))
        }
        var contents = DirectoryContents(certificates: [], failures: [])
        var seen = Set<DERCertificate>()
        for name in names {
            let fileExtension = (name as NSString).pathExtension.lowercased()
            if let extensions, !extensions.contains(fileExtension) { continue }
            let filePath = (path as NSString).appendingPathComponent(name)
            var isSubdirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: filePath, isDirectory: &isSubdirectory),
                !isSubdirectory.boolValue
            else { continue }
            do {
                for certificate in try certificates(atPath: filePath) where seen.insert(certificate).inserted {
                    contents.certificates.append(certificate)
                }
            } catch let error as CertificateLoadingError {
                contents.failures.append(error)
            }
        }
        return contents
    }

    /// Reads every certificate file of a bundle's resources (optionally a subdirectory of them).
    /// - Parameters:
    ///   - bundle: The bundle, `Bundle.module` of a target with certificate resources, say.
    ///   - subdirectory: A folder inside the bundle's resources.
    public static func certificates(in bundle: Bundle, subdirectory: String? = nil) throws -> DirectoryContents {
        guard var path = bundle.resourcePath else {
            throw CertificateLoadingError(source: bundle.bundlePath, reason: .unreadable("the bundle has no resources"))
        }
        if let subdirectory { path = (path as NSString).appendingPathComponent(subdirectory) }
        return try certificates(inDirectory: path)
    }

    private static func certificates(fromPEM text: String, source: String?) throws -> [DERCertificate] {
        var certificates: [DERCertificate] = []
        var certificateIndex = 0
        for block in try PEMBlockScanner.blocks(in: text, source: source) {
            let isBundle = block.type == "PKCS7"
            guard isBundle || block.type == "CERTIFICATE" else { continue }
            let document: PEMDocument
            do {
                document = try PEMDocument(pemString: block.text)
            } catch {
                throw CertificateLoadingError(
                    source: source,
                    index: isBundle ? nil : certificateIndex,
                    reason: .malformedPEM(Self.readable(error))
                )
            }
            if isBundle {
                certificates += try PKCS7CertificateBundle.certificates(in: document.derBytes, source: source)
                continue
            }
            defer { certificateIndex += 1 }
            do {
                certificates.append(try DERCertificate(derBytes: document.derBytes))
            } catch let error as CertificateLoadingError {
                throw error.naming(source ?? "certificate data", index: certificateIndex)
            }
        }
        guard !certificates.isEmpty else { throw CertificateLoadingError(source: source, reason: .noCertificates) }
        return certificates
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// A swift-asn1 or swift-certificates error as text, without the source location they append
    /// ("ASN1Error.invalidASN1Object: Trailing unparsed data is present SwiftASN1/ASN1.swift:139").
    package static func readable(_ error: any Error) -> String {
        let text = String(describing: error)
        guard let location = text.range(of: #" [A-Za-z0-9_]+(/[A-Za-z0-9_+.-]+)*\.swift:[0-9]+$"#, options: .regularExpression) else {
            return text
        }
        return String(text[..<location.lowerBound])
    }

    /// A Foundation error as the system's reason ("No such file or directory"), else its
    /// localized description.
    package static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        // On Linux the underlying error is a POSIXError, on Darwin an NSError: both bridge.
        if let underlying = (nsError.userInfo[NSUnderlyingErrorKey] as? any Error).map({ $0 as NSError }),
            underlying.domain == NSPOSIXErrorDomain, let message = strerror(Int32(underlying.code))
        {
            return String(cString: message)
        }
        return nsError.localizedDescription
    }
}
