import Foundation

/// Runs a bash command line and returns its standard output; throws with its standard error when
/// it exits non-zero.
///
/// The exit is awaited through `terminationHandler`, never `waitUntilExit()`: that spins the
/// calling thread's run loop, and on a Swift concurrency thread under load it can miss the
/// child's termination and park the thread for good (swift-corelibs-foundation).
public func shell(_ command: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", "set -o pipefail; " + command]
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    exited.wait()
    guard process.terminationStatus == 0 else {
        throw ShellFailure(command: command, status: process.terminationStatus, stderr: String(decoding: errorData, as: UTF8.self))
    }
    return String(decoding: data, as: UTF8.self)
}

/// ``shell(_:)`` on a thread of its own, so that the command's wait holds none of the
/// cooperative pool's threads (two on a two-core machine): a server in the same process, whose
/// TLS verification runs in a task, keeps answering the command meanwhile.
public func shellOffPool(_ command: String) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try shell(command) })
        }
    }
}

/// A command that exited non-zero.
public struct ShellFailure: Error, CustomStringConvertible {
    /// The command line.
    public let command: String
    /// Its exit status.
    public let status: Int32
    /// What it wrote to standard error.
    public let stderr: String

    /// The command, status and error output.
    public var description: String { "`\(command)` exited \(status): \(stderr)" }
}

/// A PEM block of the given type whose body (`AAAA`) is not a valid DER object: garbage input
/// for error tests, built here so that no test file holds certificate-looking text.
public func garbagePEMBlock(_ type: String) -> String {
    let dashes = "-----"
    return "\(dashes)BEGIN \(type)\(dashes)\nAAAA\n\(dashes)END \(type)\(dashes)\n"
}
