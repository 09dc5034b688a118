import Foundation

/// The matrix, legend and advice as text.
struct DemoReport {
    let matrix: DemoMatrix
    let colored: Bool

    /// Wide enough for the longest half label (`untrusted`) and a space.
    private static let columnWidth = 10

    func print(to output: CommandOutput) {
        let nameWidth = matrix.configurations.map(\.name.count).max() ?? 10
        output.line("TransportSecurity attack lab: \(matrix.configurations.count) configurations × \(matrix.servers.count) HTTPS servers on 127.0.0.1")
        output.line("(every cell is a real request through SecureSession; ! marks a cell that differs from the documented outcome)")
        output.line("")
        // Server labels on two lines, split at their first dash, to keep the columns narrow.
        let headers = matrix.servers.map { label -> (String, String) in
            guard let dash = label.firstIndex(of: "-") else { return (label, "") }
            return (String(label[...dash]), String(label[label.index(after: dash)...]))
        }
        output.line(pad("", nameWidth) + "  " + headers.map { pad($0.0, Self.columnWidth) }.joined())
        output.line(pad("", nameWidth) + "  " + headers.map { pad($0.1, Self.columnWidth) }.joined())
        for row in matrix.configurations {
            let marks = row.cells.map { cell -> String in
                let flagged = cell.outcome + (cell.outcome != cell.expected ? "!" : "")
                return paint(pad(flagged, Self.columnWidth), allowed: cell.outcome == "allowed")
            }
            output.line(pad(row.name, nameWidth) + "  " + marks.joined())
        }
        output.line("")
        output.line("Legend: why each blocked cell was blocked; ⚠ marks configurations a man in the middle gets through.")
        for row in matrix.configurations {
            var flags: [String] = []
            if row.allows("mitm-trusted") { flags.append("lets an intercepting proxy with a user-installed root through") }
            if row.allows("mitm-untrusted") { flags.append("lets ANY man in the middle through") }
            output.line("  \(row.name) — \(row.summary)\(flags.isEmpty ? "" : "  ⚠ " + flags.joined(separator: "; "))")
            for (servers, reason) in blockedReasons(row) {
                output.line("      \(servers): \(reason)")
            }
        }
        output.line("")
        output.line("Advice (from the results above):")
        for line in advice() { output.line("  • " + line) }
        output.line("")
        let mismatches = matrix.mismatches
        output.line(mismatches.isEmpty ? "Every cell matches the documented outcomes." : "MISMATCH with the documented outcomes in: \(mismatches.joined(separator: ", "))")
    }

    /// Which configuration to use when, from what each one let through.
    func advice() -> [String] {
        let rows = matrix.configurations
        func names(_ rows: [DemoMatrix.Row]) -> String { rows.map(\.name).joined(separator: " / ") }
        let stopsBoth = rows.filter { !$0.allows("mitm-trusted") && !$0.allows("mitm-untrusted") && $0.allows("legit") }
        let survivesNewKey = stopsBoth.filter { $0.allows("reissue-new-key") && !$0.allows("expired") && !$0.allows("wrong-host") && $0.validatesChain }
        // Keys matched without validation: only the leaf and the certificates that signed it
        // count, which the appended-genuine server tests.
        let unvalidatedPins = stopsBoth.filter { !$0.validatesChain && $0.name.contains("key:") }
        let appendedAccepted = rows.filter { $0.allows("appended-genuine") && !$0.allows("mitm-untrusted") }
        let breaksOnNewKey = stopsBoth.filter { !$0.allows("reissue-new-key") }
        let anyMITM = rows.filter { $0.allows("mitm-untrusted") }
        let proxyOnly = rows.filter { $0.allows("mitm-trusted") && !$0.allows("mitm-untrusted") }
        let staleAccepted = rows.filter { ($0.allows("expired") || $0.allows("not-yet-valid")) && !$0.allows("mitm-untrusted") }
        let nothing = rows.filter { row in row.cells.allSatisfy { $0.outcome == "blocked" } }
        var advice: [String] = []
        if !survivesNewKey.isEmpty {
            advice.append("Your own API behind a CA certificate: pin the root or intermediate key (\(names(survivesNewKey))). It stops both men in the middle and keeps working when the leaf is re-issued, even with a new key.")
        }
        if !unvalidatedPins.isEmpty {
            advice.append("Where nothing is validated (\(names(unvalidatedPins))), a pin matches only the leaf and the certificates that signed it, link by link: the appended-genuine server, which sends the real certificates after its own leaf, is refused. Nothing else is checked there (expired certificates pass, a root pin holds only when the server sends the root): validate the chain (4) or make the pinned certificates the only anchors (9 cert:root, AC) wherever you can.")
        }
        if !appendedAccepted.isEmpty {
            advice.append("An attacker who appends the genuine certificates after their own leaf got through (\(names(appendedAccepted))): pins were matched against certificates the handshake never proved.")
        }
        if !breaksOnNewKey.isEmpty {
            advice.append("Pinning the leaf also stops both men in the middle, but a new leaf key locks clients out (\(names(breaksOnNewKey))): ship a backup pin of a key kept offline, as the pin set row does, and plan updates.")
        }
        if !proxyOnly.isEmpty {
            advice.append("System trust alone trusts whatever root a user or an administrator installed (\(names(proxyOnly))): fine for browsing, not for an API that must not be intercepted.")
        }
        if !staleAccepted.isEmpty {
            advice.append("Expired and not-yet-valid certificates carrying the pinned key get through (\(names(staleAccepted))): use allowInvalidCertificates only for a self-signed server you pin, never to paper over an expired certificate.")
        }
        if !anyMITM.isEmpty {
            advice.append("Never ship a configuration that lets any man in the middle through (\(names(anyMITM))): whoever intercepts the connection reads and changes the traffic.")
        }
        if !nothing.isEmpty {
            advice.append("Validating the domain of possibly invalid certificates without a pin connects to nothing at all (\(names(nothing))): rule 1 refuses it.")
        }
        return advice
    }

    /// The blocked cells of `row` grouped by reason, in column order: servers and one line.
    func blockedReasons(_ row: DemoMatrix.Row) -> [(servers: String, reason: String)] {
        var groups: [(servers: [String], reason: String)] = []
        for cell in row.cells where cell.outcome == "blocked" {
            let reason = cell.reason.split(separator: "\n").first.map(String.init) ?? ""
            if let index = groups.firstIndex(where: { $0.reason == reason }) {
                groups[index].servers.append(cell.server)
            } else {
                groups.append(([cell.server], reason))
            }
        }
        return groups.map { group in
            (group.servers.count == row.cells.count ? "every server" : group.servers.joined(separator: ", "), group.reason)
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private func paint(_ text: String, allowed: Bool) -> String {
        guard colored else { return text }
        return (allowed ? "\u{1B}[32m" : "\u{1B}[31m") + text + "\u{1B}[0m"
    }
}

extension DemoMatrix.Row {
    /// Whether this configuration let the server labelled `server` through.
    func allows(_ server: String) -> Bool {
        cells.contains { $0.server == server && $0.outcome == "allowed" }
    }
}
