import NIOCore

/// The parts of a request body held in memory or in files, read in the order they are sent:
/// bytes in parts of at most ``RequestBodySource/partSize``, each file through a
/// ``BodyFileReader`` opened when it is reached and closed once read. The one reading of such a
/// body, whether it is sent or digested before it is sent.
struct BodyPartReader: ~Copyable {
    private var pending: ArraySlice<RequestBodySource.MeasuredPart>
    private var bytes = ByteBuffer()
    private var file: BodyFileReader?

    /// A reader of `parts`, in order.
    init(_ parts: [RequestBodySource.MeasuredPart]) {
        pending = parts[...]
    }

    /// The next part, `nil` once every part has been read.
    /// - Throws: as ``BodyFileReader/next()`` for a file, or ``BodyFileReader/init(path:length:forbidden:)``
    ///   when it cannot be opened.
    mutating func next() throws -> ByteBuffer? {
        while true {
            if bytes.readableBytes > 0 {
                return bytes.readSlice(length: min(RequestBodySource.partSize, bytes.readableBytes))
            }
            if var reader = file.take() {
                if let part = try reader.next() {
                    file = consume reader
                    return part
                }
                continue
            }
            guard let part = pending.popFirst() else { return nil }
            switch part {
            case .bytes(let buffer): bytes = buffer
            case .file(let path, let length, let forbidden): file = try BodyFileReader(path: path, length: length, forbidden: forbidden)
            }
        }
    }
}
