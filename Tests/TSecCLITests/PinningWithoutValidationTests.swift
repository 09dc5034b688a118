import Foundation
import PKIBuilder
import TSecCLI
import TestServers
import Testing
import TransportSecurity

/// `tsec get` pinning with validation off, against `openssl s_server` presenting an attacker's
/// own leaf followed by the genuine leaf, intermediate and root: the handshake proves only the
/// attacker's key, so no pin on the genuine certificates may let it through.
@Suite("tsec: pins without validation against a server appending the genuine chain")
struct PinningWithoutValidationTests {
    let files = try! LabFiles()
    var lab: TrustLab { files.lab }

    func get(_ url: URL, _ arguments: [String]) async -> (status: Int32, output: CommandOutput) {
        await tsec(["get", url.absoluteString, "--system-roots", files.path("system.pem"), "--at", files.at] + arguments)
    }

    @Test("-k --pin-sha256, -k --pinnedpubkey and --allow-invalid-certificates --mode public-key refuse the attacker, whichever genuine certificate is pinned, and still reach the genuine server")
    func appendedGenuineChain() async throws {
        let genuine = try lab.loopbackChain() + [lab.root]
        let attackerLeaf = try lab.pki.issueSelfSigned(.server("loopback", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"]))
        let attacker = try OpenSSLServer(chain: [attackerLeaf] + genuine)
        defer { attacker.stop() }
        let server = try OpenSSLServer(chain: genuine)
        defer { server.stop() }
        let leafFile = try files.write("loopback-leaf.pem", genuine[0].pemString)

        for (index, pinned) in genuine.enumerated() {
            let pin = pinned.der.spkiPin.description
            let curlPin = "sha256//" + pin.dropFirst("sha256/".count)
            let refusals: [[String]] = [
                ["-k", "--pin-sha256", pin],
                ["--allow-invalid-certificates", "--pin-sha256", pin],
                ["-k", "--pinnedpubkey", curlPin],
            ]
            for arguments in refusals {
                let refused = await get(attacker.url, arguments)
                #expect(refused.status == 1, "\(pinned.certificate.subject) \(arguments): \(refused.output.stderr)")
            }
            // The same pins against the genuine chain: a leaf pin always, a CA pin where it may
            // match (curl's --pinnedpubkey compares the leaf's key only).
            #expect(await get(server.url, ["-k", "--pin-sha256", pin]).status == 0, "\(pinned.certificate.subject)")
            #expect(await get(server.url, ["-k", "--pinnedpubkey", curlPin]).status == (index == 0 ? 0 : 1), "\(pinned.certificate.subject)")
        }
        // AFNetworking's configuration 6: the genuine leaf pinned, invalid certificates allowed.
        for domain in [[], ["--no-domain-validation"]] {
            let policy = ["--allow-invalid-certificates", "--mode", "public-key", "--pin", leafFile] + domain
            let refused = await get(attacker.url, policy + ["-v"])
            #expect(refused.status == 1, "\(domain)")
            #expect(refused.output.stderr.contains("only the leaf and the certificates signature-linked above it count"), "\(refused.output.stderr)")
            #expect(await get(server.url, policy).status == 0)
        }
        // The attacker's own key is what the handshake proved: pinning it is what lets it in.
        let attackerPin = attackerLeaf.der.spkiPin.description
        #expect(await get(attacker.url, ["-k", "--pinnedpubkey", "sha256//" + attackerPin.dropFirst("sha256/".count)]).status == 0)
    }

    @Test("tsec evaluate: a wildcard over a private-section public suffix matches (*.s3.amazonaws.com), over an ICANN one it does not (*.co.uk)")
    func privateSectionWildcards() async throws {
        for (pattern, host, trusted) in [("*.s3.amazonaws.com", "bucket.s3.amazonaws.com", true), ("*.github.io", "octocat.github.io", true), ("*.co.uk", "example.co.uk", false)] {
            let leaf = try lab.pki.issue(.server(pattern, dnsNames: [pattern]), by: lab.intermediate)
            let chain = try files.write("wildcard-\(UUID().uuidString).pem", [leaf, lab.intermediate].pemBundle)
            let result = await tsec(["evaluate", "--chain", chain, "--host", host, "--system-roots", files.path("system.pem"), "--at", files.at])
            #expect(result.status == (trusted ? 0 : 1), "\(pattern): \(result.output.stdout)")
            if !trusted { #expect(result.output.stdout.contains("a wildcard over the public suffix co.uk"), "\(result.output.stdout)") }
        }
    }
}
