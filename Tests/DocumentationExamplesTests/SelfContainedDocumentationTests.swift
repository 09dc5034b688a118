import Foundation
import Testing

/// The documentation stands on its own: README stays short, and no file of the repository cites
/// a document the repository does not ship.
@Suite("Self-contained documentation: a short README, no citation of a missing document")
struct SelfContainedDocumentationTests {
    static let root = HouseRulesTests.root

    /// Every text file of the repository, relative to its root: build products, checkouts,
    /// hidden folders and binary fixtures left out.
    static func textFiles() throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: root.path))
        let extensions: Set<String> = ["swift", "md", "sh", "py", "c", "h", "yml", "yaml", "txt", "json", "plist", "conf", "cfg"]
        var files: [String] = []
        while let path = enumerator.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if name.hasPrefix(".") && name != ".ci" || name == ".build" || name == "Fixtures" || name == "Package.resolved" {
                enumerator.skipDescendants()
                continue
            }
            if extensions.contains((name as NSString).pathExtension) || path == ".ci/run" { files.append(path) }
        }
        return files.sorted()
    }

    @Test("README.md holds at most 400 lines")
    func readmeIsShort() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        #expect(lines <= 400, "README.md has \(lines) lines: the reference belongs in the DocC articles")
        #expect(lines >= 100, "README.md was not read (\(lines) lines)")
    }

    @Test("no file cites the specification, ATS notes or house notes the repository does not contain")
    func noCitationOfMissingDocuments() throws {
        // Spelled in parts so that this file does not cite them itself.
        let citations = ["SPEC" + " §", "SPEC" + ".md", "ATS" + ".md", "HOUSE" + ".md", "../" + "shared/"]
        var found: [String] = []
        let files = try Self.textFiles()
        #expect(files.count > 300, "the repository's files were not found (\(files.count))")
        for file in files {
            guard let text = try? String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8) else { continue }
            for citation in citations where text.contains(citation) {
                found.append("\(file) cites \(citation)")
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test("every relative link of the Markdown documents leads to a file of the repository")
    func relativeLinksResolve() throws {
        var broken: [String] = []
        var links = 0
        for file in try Self.textFiles() where file.hasSuffix(".md") {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            let folder = Self.root.appendingPathComponent(file).deletingLastPathComponent()
            var rest = text[...]
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                let target = String(after[..<close])
                rest = after[close...]
                if target.contains("://") || target.hasPrefix("#") || target.hasPrefix("mailto:") || target.contains(" ") { continue }
                links += 1
                let path = String(target.prefix(while: { $0 != "#" }))
                if !FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path) {
                    broken.append("\(file): \(target)")
                }
            }
        }
        #expect(links >= 20, "the links were not found (\(links))")
        #expect(broken.isEmpty, "\(broken.joined(separator: "\n"))")
    }
}
