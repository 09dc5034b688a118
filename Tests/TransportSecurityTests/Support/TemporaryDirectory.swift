import Foundation

/// A fresh directory under the system's temporary directory, removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("tsec-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `contents` to `name` inside the directory and returns the file's path.
    @discardableResult
    func write(_ name: String, _ contents: some DataProtocol) throws -> String {
        let file = (path as NSString).appendingPathComponent(name)
        try Data(contents).write(to: URL(fileURLWithPath: file))
        return file
    }

    @discardableResult
    func write(_ name: String, text: String) throws -> String { try write(name, Data(text.utf8)) }
}
