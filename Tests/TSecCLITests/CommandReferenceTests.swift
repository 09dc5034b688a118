import ArgumentParser
import Foundation
import TSecCLI
import Testing

/// The reference of `tsec` (TSecCLI's DocC article) against the commands themselves.
@Suite("tsec's reference")
struct CommandReferenceTests {
    /// Every command that runs (subcommands of subcommands included), with the name of the
    /// top-level command whose section of the reference describes it.
    static func commands(under parent: any ParsableCommand.Type = TSec.self, section: String? = nil) -> [(command: any ParsableCommand.Type, section: String)] {
        parent.configuration.subcommands.flatMap { command -> [(command: any ParsableCommand.Type, section: String)] in
            let section = section ?? (command.configuration.commandName ?? "")
            let nested = commands(under: command, section: section)
            return nested.isEmpty ? [(command, section)] : nested
        }
    }

    /// The options `help` lists (in any of its sections), each with its other spellings: `["-H", "--header"]`,
    /// `["--anchors-only", "--no-anchors-only"]`.
    static func options(inHelp help: String) -> [[String]] {
        // Every section lists options: OPTIONS, and the titled groups (`tsec get`'s SERVER TRUST…).
        guard let listed = help.components(separatedBy: "USAGE:").last else { return [] }
        return listed.split(separator: "\n").compactMap { line -> [String]? in
            guard line.hasPrefix("  -") else { return nil }
            var names: [String] = []
            for token in line.split(separator: " ") {
                if token.hasPrefix("-") {
                    names += token.trimmingCharacters(in: CharacterSet(charactersIn: ",")).split(separator: "/").map(String.init)
                } else if !token.hasPrefix("<") {
                    break
                }
            }
            // `--help` and the root's `--version`, shown in every command's help, are the
            // reference's own introduction.
            return names.contains("--help") || names.contains("--version") ? nil : names
        }
    }

    /// The reference's section of `tsec NAME`: from its `## \`tsec NAME` heading to the next heading.
    static func section(of name: String, in reference: String) -> String? {
        guard let start = ["\n## `tsec \(name) ", "\n## `tsec \(name)`"].lazy.compactMap({ reference.range(of: $0) }).first else { return nil }
        let rest = reference[start.upperBound...]
        let end = ["\n# ", "\n## "].compactMap { rest.range(of: $0)?.lowerBound }.min() ?? rest.endIndex
        return String(rest[..<end])
    }

    /// Whether `text` names `option` as a word of its own (`--key`, not the start of `--key-type`).
    static func names(_ option: String, in text: String) -> Bool {
        var searched = text[...]
        while let found = searched.range(of: option) {
            let before = found.lowerBound == text.startIndex ? nil : text[text.index(before: found.lowerBound)]
            let after = found.upperBound == text.endIndex ? nil : text[found.upperBound]
            let isPart: (Character?) -> Bool = { $0.map { $0.isLetter || $0.isNumber || $0 == "-" } ?? false }
            if !isPart(before), !isPart(after) { return true }
            searched = text[found.upperBound...]
        }
        return false
    }

    @Test("every command of tsec has a section in its reference (TSecReference.md), and the section names each of its options (in one of its spellings)")
    func everyOptionIsDocumented() throws {
        let referenceURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/TSecCLI/TSecCLI.docc/TSecReference.md")
        let reference = try String(contentsOf: referenceURL, encoding: .utf8)
        let commands = Self.commands()
        #expect(commands.count >= 17, "\(commands.count) commands found")
        var optionsSeen = 0
        for (command, sectionName) in commands {
            let help = TSec.helpMessage(for: command, columns: 400)
            let options = Self.options(inHelp: help)
            optionsSeen += options.count
            guard let section = Self.section(of: sectionName, in: reference) else {
                Issue.record("TSecReference.md has no section for tsec \(sectionName)")
                continue
            }
            for spellings in options where !spellings.contains(where: { Self.names($0, in: section) }) {
                Issue.record("TSecReference.md's section of tsec \(sectionName) does not name \(spellings.joined(separator: "/")) (\(command.configuration.commandName ?? ""))")
            }
        }
        #expect(optionsSeen >= 150, "the options were not read from the help (\(optionsSeen))")
    }

    @Test("every `swift run tsec …` line of README.md parses as it is written (with a real pin for `sha256/…`)")
    func readmeCommandsParse() throws {
        let readmeURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../README.md")
        let readme = try String(contentsOf: readmeURL, encoding: .utf8)
        let lines = readme.split(separator: "\n").filter { $0.hasPrefix("swift run tsec ") }
        #expect(lines.count >= 5, "\(lines.count) lines found")
        let pin = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        for line in lines {
            let command = line.components(separatedBy: "#")[0].dropFirst("swift run tsec ".count)
            let arguments = command.split(separator: " ").map { $0 == "sha256/…" ? pin : String($0) }
            #expect(throws: Never.self, "\(line)") { _ = try TSec.parseAsRoot(arguments) }
        }
    }

    @Test("tsec get --help lists its options in titled sections, in the order a request is made, and leaves only --help and --version untitled")
    func getHelpIsGrouped() {
        let help = TSec.helpMessage(for: GetCommand.self, columns: 400)
        let titles = help.split(separator: "\n").filter { $0.hasSuffix(":") && $0.uppercased() == $0 && !$0.hasPrefix(" ") }.map(String.init)
        #expect(titles == [
            "ARGUMENTS:", "SERVER TRUST:", "CLIENT IDENTITY:", "REQUEST:", "AUTHENTICATION:", "CONNECTION:",
            "COOKIES AND HSTS:", "OUTPUT:", "MESSAGE SIGNATURES:", "OPTIONS:",
        ])
        let untitled = Self.options(inHelp: help.components(separatedBy: "\nOPTIONS:").last ?? "")
        #expect(untitled.isEmpty, "left untitled: \(untitled)")
        func section(_ title: String) -> String {
            let rest = help.components(separatedBy: "\n\(title)\n").last ?? ""
            return rest.components(separatedBy: "\n\n").first ?? ""
        }
        #expect(section("SERVER TRUST:").contains("--pin-sha256") && section("SERVER TRUST:").contains("--crl"))
        #expect(section("REQUEST:").contains("--data-urlencode") && section("CONNECTION:").contains("--retry"))
        #expect(section("OUTPUT:").contains("--output") && section("AUTHENTICATION:").contains("--oauth2-token-url"))
    }
}
