import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the last accepted pin-update document is kept: one file holding the exact document
/// bytes and their signature, replaced atomically (a temporary file in the same folder, written,
/// `fsync`ed, renamed over the old one, the folder `fsync`ed). A crash at any moment leaves
/// either the old file or the new one, never a mix; the signature is checked again on every load.
public struct PinUpdateStore: Sendable, Hashable {
    /// The file.
    public let path: String

    /// A store at `path` (its folder must exist).
    public init(path: String) { self.path = path }

    /// What the file holds.
    private struct Envelope: Codable {
        var format = 1
        var document: String
        var signature: String
    }

    /// The stored document bytes and signature, or `nil` when nothing is stored.
    /// - Throws: ``PinUpdateError/Reason/corruptStore(_:)`` for a truncated or corrupt file.
    public func read() throws(PinUpdateError) -> (document: [UInt8], signature: [UInt8])? {
        let data: Data
        do {
            data = try InputFile.read(path)
        } catch .missing {
            return nil
        } catch {
            throw PinUpdateError(.corruptStore("cannot read the file: \(error)"), source: path)
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data), envelope.format == 1,
            let document = Data(base64Encoded: envelope.document), let signature = Data(base64Encoded: envelope.signature)
        else {
            throw PinUpdateError(.corruptStore(data.isEmpty ? "the file is empty" : "the file is truncated or not a stored pin set"), source: path)
        }
        return (Array(document), Array(signature))
    }

    /// Replaces the stored document atomically.
    public func write(document: [UInt8], signature: [UInt8]) throws(PinUpdateError) {
        // `open` and `rename` read C strings: a NUL would end the path early, at another file.
        guard !path.utf8.contains(0) else { throw PinUpdateError(.fileError("the path holds a NUL character"), source: path) }
        let envelope = Envelope(document: Data(document).base64EncodedString(), signature: Data(signature).base64EncodedString())
        let bytes: Data
        do { bytes = try JSONEncoder().encode(envelope) } catch {
            throw PinUpdateError(.fileError("cannot encode the pin set: \(error)"), source: path)
        }
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("cannot create \(temporary)", path) }
        var written = 0
        let complete = bytes.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = posixWrite(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return fsync(descriptor) == 0
        }
        let closed = close(descriptor) == 0
        guard complete, closed else {
            let failure = Self.failure("cannot write \(temporary)", path)
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let failure = Self.failure("cannot rename \(temporary) to \(path)", path)
            unlink(temporary)
            throw failure
        }
        // The rename is durable once the folder is.
        let folderDescriptor = open(folder, O_RDONLY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    private static func failure(_ what: String, _ path: String) -> PinUpdateError {
        PinUpdateError(.fileError("\(what): \(String(cString: strerror(errno)))"), source: path)
    }
}

/// `write(2)`, named apart from the store's own `write` method.
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
