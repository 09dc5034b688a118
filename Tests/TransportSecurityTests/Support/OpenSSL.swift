import Foundation

/// Runs shell pipelines of the `openssl` command: an independent implementation to compare with.
enum OpenSSL {
    struct Failure: Error, CustomStringConvertible {
        let command: String
        let status: Int32
        let stderr: String
        var description: String { "`\(command)` exited \(status): \(stderr)" }
    }

    static func run(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "set -o pipefail; " + command]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(command: command, status: process.terminationStatus, stderr: String(decoding: errorData, as: UTF8.self))
        }
        return String(decoding: data, as: UTF8.self)
    }
}
