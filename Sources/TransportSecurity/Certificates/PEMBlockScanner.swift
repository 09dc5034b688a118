import Foundation

/// Splits PEM text into its `-----BEGIN X-----` … `-----END X-----` blocks, so that each
/// certificate of a bundle can be decoded (by swift-asn1) and reported on by its position.
enum PEMBlockScanner {
    struct Block {
        var type: String
        var text: String
    }

    static func blocks(in text: String, source: String?) throws(CertificateLoadingError) -> [Block] {
        var blocks: [Block] = []
        var current: (type: String, lines: [Substring])?
        // Files concatenated without a final newline run an END line into the next BEGIN line.
        let text = text.replacingOccurrences(of: "----------BEGIN ", with: "-----\n-----BEGIN ")
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = rawLine.trimmingSuffix(while: { $0 == "\r" || $0 == " " || $0 == "\t" })
            if let type = Self.label(of: line, marker: "BEGIN") {
                if let open = current {
                    throw CertificateLoadingError(
                        source: source,
                        reason: .malformedPEM("the \(open.type) block #\(blocks.count + 1) has no END line")
                    )
                }
                current = (type, [line])
            } else if let type = Self.label(of: line, marker: "END") {
                guard let open = current else {
                    throw CertificateLoadingError(source: source, reason: .malformedPEM("END \(type) without BEGIN"))
                }
                guard open.type == type else {
                    throw CertificateLoadingError(
                        source: source,
                        reason: .malformedPEM("the \(open.type) block #\(blocks.count + 1) ends with END \(type)")
                    )
                }
                blocks.append(Block(type: type, text: (open.lines + [line]).joined(separator: "\n")))
                current = nil
            } else if current != nil, !line.isEmpty {
                current?.lines.append(line)
            }
        }
        if let open = current {
            throw CertificateLoadingError(
                source: source,
                reason: .malformedPEM("the \(open.type) block #\(blocks.count + 1) has no END line (truncated?)")
            )
        }
        return blocks
    }

    private static func label(of line: Substring, marker: String) -> String? {
        let prefix = "-----\(marker) "
        guard line.hasPrefix(prefix), line.hasSuffix("-----"), line.count > prefix.count + 5 else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(5))
    }
}

extension Substring {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var end = endIndex
        while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
