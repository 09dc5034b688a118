import FuzzDriver
import Foundation
import TransportSecurity

/// A directory of certificate files, as `certificatesInBundle:` reads them. The input is split
/// at every `0x00 0x00` into files, each named with one of the certificate extensions (and, for
/// every fourth, one that is not read); the directory is loaded, then every file on its own.
/// Every file must end up either among the certificates or among the failures.
func fuzzCertificateDirectory(_ input: UnsafeRawBufferPointer) {
    let bytes = Array(input)
    let files = split(bytes)
    let extensions = ["pem", "der", "crt", "cer"]
    var readable = 0
    for (index, file) in files.enumerated() {
        let name = index % 4 == 3 ? "file\(index).txt" : "file\(index).\(extensions[index % extensions.count])"
        if !name.hasSuffix(".txt") { readable += 1 }
        _ = FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(file))
    }
    defer { for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] { try? FileManager.default.removeItem(atPath: directory + "/" + name) } }
    guard let contents = try? CertificateLoader.certificates(inDirectory: directory) else {
        preconditionFailure("an existing directory could not be listed")
    }
    let parsedFiles = files.indices.filter { $0 % 4 != 3 && (try? CertificateLoader.certificates(atPath: directory + "/file\($0).\(extensions[$0 % extensions.count])")) != nil }
    precondition(parsedFiles.count + contents.failures.count == readable, "a certificate file was neither loaded nor reported")
}

private let directory: String = {
    let path = NSTemporaryDirectory() + "tsec-fuzz-directory-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

private func split(_ bytes: [UInt8]) -> [[UInt8]] {
    var files: [[UInt8]] = [[]]
    var index = 0
    while index < bytes.count {
        if index + 1 < bytes.count, bytes[index] == 0, bytes[index + 1] == 0 {
            files.append([])
            index += 2
        } else {
            files[files.count - 1].append(bytes[index])
            index += 1
        }
    }
    return Array(files.prefix(8))
}

@main
enum FuzzCertificateDirectoryMain {
    static func main() { runFuzzer(fuzzCertificateDirectory) }
}
