import Foundation
import Testing

/// The Swift examples of README.md, the DocC articles and the documentation comments are
/// compiled in `ReadmeExamples.swift` and `DocCommentExamples.swift` (README's example of Vapor
/// and Hummingbird in `Examples/ServerFrameworks`, whose own build compiles it: the frameworks
/// are not dependencies of this package); this suite keeps them the same as the documentation
/// shows them.
@Suite("documentation examples")
struct DocumentationExamplesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let packageRoot = folder.deletingLastPathComponent().deletingLastPathComponent()

    /// An example: where it is shown and its lines.
    struct Example {
        let place: String
        let lines: [String]

        /// Its code without its imports and the blank lines at either end.
        var code: [String] { DocumentationExamplesTests.trimmed(lines.filter { !$0.hasPrefix("import ") }) }
        var imports: [String] { lines.filter { $0.hasPrefix("import ") } }
    }

    /// The ` ```swift ` blocks of `text`; with a `commentPrefix` (`///`), those of its
    /// documentation comments, the prefix and the space after it taken from each line.
    static func blocks(in text: String, place: String, commentPrefix: String?) -> [Example] {
        var examples: [Example] = []
        var current: [String]?
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(rawLine)
            if let commentPrefix {
                let trimmed = line.drop(while: { $0 == " " })
                guard trimmed.hasPrefix(commentPrefix) else {
                    current = nil
                    continue
                }
                line = String(trimmed.dropFirst(commentPrefix.count))
                if line.hasPrefix(" ") { line.removeFirst() }
            }
            if current == nil, line == "```swift" {
                current = []
            } else if let block = current, line == "```" {
                examples.append(Example(place: "\(place):\(number + 1 - block.count - 1)", lines: block))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return examples
    }

    /// Every example the documentation shows, but for excerpts of a package manifest (a first line
    /// `// Package.swift`), which ``manifestExcerptsNameRealProducts()`` checks.
    static func documentedExamples() throws -> [Example] {
        var examples = blocks(in: try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8), place: "README.md", commentPrefix: nil)
            .filter { $0.lines.first != "// Package.swift" }
        let sources = packageRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.sorted() ?? []
        for file in files where file.hasSuffix(".swift") || (file.contains(".docc/") && file.hasSuffix(".md")) {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            examples += blocks(in: text, place: "Sources/\(file)", commentPrefix: file.hasSuffix(".swift") ? "///" : nil)
        }
        return examples
    }

    /// The copies in `source`: the lines between `// example begin` and `// example end`, their
    /// indentation (the marker's) taken off.
    static func copies(in source: String) -> [[String]] {
        var copies: [[String]] = []
        var current: [String]?
        var indentation = 0
        for line in source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let leading = line.prefix(while: { $0 == " " }).count
            let trimmed = line.dropFirst(leading)
            if trimmed == "// example begin" {
                current = []
                indentation = leading
            } else if trimmed == "// example end", let copy = current {
                copies.append(copy)
                current = nil
            } else {
                current?.append(String(line.dropFirst(min(indentation, leading))))
            }
        }
        return copies
    }

    /// `lines` without blank lines at either end.
    static func trimmed(_ lines: [String]) -> [String] {
        Array(lines.drop(while: \.isEmpty).reversed().drop(while: \.isEmpty).reversed())
    }

    @Test("every Swift example of README.md, the DocC articles and the documentation comments is compiled here as it is shown, its imports included; every copy here is still shown")
    func examplesAreCompiled() throws {
        let examples = try Self.documentedExamples()
        let sources = try [
            Self.folder.appendingPathComponent("ReadmeExamples.swift"),
            Self.folder.appendingPathComponent("DocCommentExamples.swift"),
            Self.packageRoot.appendingPathComponent("Examples/ServerFrameworks/Tests/ServerFrameworksTests/ReadmeExample.swift"),
        ].map { try String(contentsOf: $0, encoding: .utf8) }
        let copies = sources.flatMap(Self.copies(in:))
        let imports = Set(sources.flatMap { $0.split(separator: "\n").map(String.init) }.filter { $0.hasPrefix("import ") })
        #expect(examples.count >= 60, "the documentation's Swift examples were not found (\(examples.count))")
        #expect(copies.count >= 60, "the copies were not found (\(copies.count))")

        var copied = Set<[String]>()
        for example in examples {
            for line in example.imports {
                #expect(imports.contains(line), "\(example.place) imports what the copies do not: \(line)")
            }
            if copies.contains(example.code) {
                copied.insert(example.code)
            } else {
                Issue.record("the example at \(example.place) is not compiled as it is shown: copy it between `// example begin` and `// example end` in ReadmeExamples.swift or DocCommentExamples.swift (Examples/ServerFrameworks for Vapor and Hummingbird)\n\(example.code.joined(separator: "\n"))")
            }
        }
        for copy in copies where !copied.contains(copy) {
            Issue.record("a copy no example shows any more:\n\(copy.joined(separator: "\n"))")
        }
    }

    @Test("README's Package.swift excerpt names products this package has, and depends on it by its name")
    func manifestExcerptsNameRealProducts() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let manifest = try String(contentsOf: Self.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let excerpts = Self.blocks(in: readme, place: "README.md", commentPrefix: nil).filter { $0.lines.first == "// Package.swift" }
        #expect(excerpts.count == 1)
        var named = 0
        for line in excerpts.flatMap(\.lines) {
            guard let range = line.range(of: #".product(name: ""#) else { continue }
            let rest = line[range.upperBound...]
            let name = String(rest.prefix(while: { $0 != "\"" }))
            named += 1
            #expect(manifest.contains(#".library(name: "\#(name)""#), "README names a product the package does not have: \(name)")
            #expect(rest.contains(#"package: "TransportSecurity")"#), "README's product \(name) names another package")
        }
        #expect(named >= 2)
    }
}
