import Foundation
import PKIBuilder
import SwiftASN1
import TSecCLI
import TestServers
import Testing
import TransportSecurity
import TransportSecurityNIO

@Suite("tsec get")
struct GetCommandTests {
    let files = try! LabFiles()
    var lab: TrustLab { files.lab }

    /// `tsec get URL --system-roots <lab roots> --at <lab time>` plus `arguments`.
    func get(_ url: URL, _ arguments: [String] = []) async -> (status: Int32, output: CommandOutput) {
        await tsec(["get", url.absoluteString, "--system-roots", files.path("system.pem"), "--at", files.at] + arguments)
    }

    @Test("-i over HTTP/1.1: the status line with swift-nio's phrase for a known code (a server's own is not kept), without a trailing space for a code it does not name")
    func includeStatusLines() async throws {
        let server = try await ScriptedResponseServer(responses: [
            "HTTP/1.1 200 Fine Thanks\r\nContent-Length: 2\r\n\r\nok",
            "HTTP/1.1 299 Custom Thing\r\nContent-Length: 2\r\n\r\nok",
        ])
        let known = await get(server.url, ["-i"])
        #expect(known.output.stdout == "HTTP/1.1 200 OK\nContent-Length: 2\n\nok")
        let unnamed = await get(server.url, ["-i"])
        #expect(unnamed.output.stdout == "HTTP/1.1 299\nContent-Length: 2\n\nok")
        await server.stop()
    }

    @Test("a response of any status exits 0 with the body on stdout")
    func basics() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let hello = await get(server.url("/hello"))
        #expect(hello.status == 0)
        #expect(hello.output.stdout == "hello")
        let failing = await get(server.url("/status/500"))
        #expect(failing.status == 0)
        #expect(failing.output.stdout == "status 500")
        let included = await get(server.url("/hello"), ["-i"])
        #expect(included.output.stdout.hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(included.output.stdout.contains("Content-Type: text/plain"))
        #expect(included.output.stdout.hasSuffix("\n\nhello"))
        let posted = await get(server.url("/echo"), ["-X", "PUT", "-d", "payload", "-H", "Content-Type: text/x-test"])
        #expect(posted.output.stdout == "payload")
        // Repeated -d parts are joined with '&' (the last one alone was sent), sent as a form
        // unless a Content-Type is given.
        let form = await get(server.url("/echo"), ["-i", "-d", "a=1", "-d", "b=2"])
        #expect(form.output.stdout.hasSuffix("\n\na=1&b=2"), "\(form.output.stdout)")
        #expect(form.output.stdout.contains("Content-Type: application/x-www-form-urlencoded\n"))
        #expect(form.output.stdout.contains("X-Method: POST\n"))
        await server.stop()
    }

    @Test("curl's data options: -d @FILE loses its line breaks, --data-binary keeps them, --data-raw takes @ as text, --data-urlencode encodes its content; the parts join with & in command-line order whatever their options")
    func dataOptions() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let lines = try files.write("lines-\(UUID().uuidString).txt", "a=1\r\nb=2\n")
        #expect(await get(server.url("/echo"), ["-d", "@\(lines)"]).output.stdout == "a=1b=2")
        #expect(await get(server.url("/echo"), ["--data-ascii", "@\(lines)"]).output.stdout == "a=1b=2")
        #expect(await get(server.url("/echo"), ["--data-binary", "@\(lines)"]).output.stdout == "a=1\r\nb=2\n")
        #expect(await get(server.url("/echo"), ["--data-raw", "@\(lines)"]).output.stdout == "@\(lines)")
        let encoded = await get(server.url("/echo"), [
            "--data-urlencode", "q=hello world & more", "--data-urlencode", "=a+b", "--data-urlencode", "plain/é",
            "--data-urlencode", "file@\(lines)", "--data-urlencode", "@\(lines)",
        ])
        #expect(encoded.output.stdout == "q=hello%20world%20%26%20more&a%2Bb&plain%2F%C3%A9&file=a%3D1%0D%0Ab%3D2%0A&a%3D1%0D%0Ab%3D2%0A")
        let mixed = await get(server.url("/echo"), ["-i", "--data-urlencode", "n=x y", "-d", "b=2", "--data-raw", "@c", "--data-binary", "d=4", "-d", "e=5"])
        #expect(mixed.output.stdout.hasSuffix("\n\nn=x%20y&b=2&@c&d=4&e=5"), "\(mixed.output.stdout)")
        #expect(mixed.output.stdout.contains("X-Method: POST\n"))
        let missing = await get(server.url("/echo"), ["--data-urlencode", "name@/no/such/file"])
        #expect(missing.status == 2)
        #expect(missing.output.stderr.contains("the --data-urlencode file /no/such/file cannot be read"), "\(missing.output.stderr)")
        await server.stop()
    }

    @Test("-G sends the data options' parts in the URL's query, in a GET (a HEAD with -I), after the URL's own query; not with -F or -T; a space is sent percent-encoded")
    func dataInQuery() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let plain = await get(server.url("/target"), ["-G", "-d", "a=1", "--data-urlencode", "q=x y"])
        #expect(plain.output.stdout == "/target?a=1&q=x%20y")
        let appended = await get(server.url("/target?page=2"), ["--get", "-d", "a=1"])
        #expect(appended.output.stdout == "/target?page=2&a=1")
        let head = await get(server.url("/target"), ["-G", "-I", "-d", "a=1"])
        #expect(head.status == 0, "\(head.output.stderr)")
        #expect(head.output.stdout.hasPrefix("HTTP/1.1 200 OK\n"))
        let echoed = await get(server.url("/echo"), ["-G", "-i", "-d", "a=1"])
        #expect(echoed.output.stdout.contains("X-Method: GET\n"))
        #expect(echoed.output.stdout.hasSuffix("\n\n"), "no body: \(echoed.output.stdout)")
        #expect(await get(server.url("/echo"), ["-G", "-F", "a=1"]).status == 2)
        // A space the part holds is sent percent-encoded (a request line cannot carry it).
        #expect(await get(server.url("/target"), ["-G", "-d", "q=two words"]).output.stdout == "/target?q=two%20words")
        await server.stop()
    }

    @Test("cookies: -c keeps what servers set (redirects included) in a curl cookie file of mode 0600, -b sends a file's cookies or NAME=VALUE as it is")
    func cookies() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let jar = files.path("cookies-\(UUID().uuidString).txt")
        // -b with a file that does not exist yet starts an empty jar (curl's `-b jar -c jar`).
        let login = await get(server.url("/set-cookie?to=/headers"), ["-b", jar, "-c", jar, "-H", "X-Set-Cookie: sid=abc; Secure; HttpOnly; Max-Age=3600"])
        #expect(login.status == 0, "\(login.output.stderr)")
        #expect(login.output.stdout.contains(#""cookie":"sid=abc""#), "the redirect carried the cookie: \(login.output.stdout)")
        let written = try String(contentsOfFile: jar, encoding: .utf8)
        #expect(written.contains("#HttpOnly_127.0.0.1\tFALSE\t/\tTRUE\t"), "\(written)")
        #expect(written.contains("\tsid\tabc\n"))
        let mode = try FileManager.default.attributesOfItem(atPath: jar)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // The file's cookies go with a later request.
        let again = await get(server.url("/headers"), ["-b", jar])
        #expect(again.output.stdout.contains(#""cookie":"sid=abc""#), "\(again.output.stdout)")
        // A request that sets no cookie leaves an existing jar file as it is.
        let refused = await tsec(["get", "https://127.0.0.1:1/", "-c", jar])
        #expect(refused.status == 3)
        #expect(try String(contentsOfFile: jar, encoding: .utf8) == written)
        // A cookie the file format cannot hold (a tab in its value or path, which HTTP allows) is
        // not written, saying so: written, it would break the file for every later run.
        let tabbed = files.path("cookies-\(UUID().uuidString).txt")
        let setTabs = await get(server.url("/set-cookie"), [
            "-c", tabbed, "-H", "X-Set-Cookie: tab=a\tb", "-H", "X-Set-Cookie: tabpath=1; Path=/a\tb", "-H", "X-Set-Cookie: plain=1",
        ])
        #expect(setTabs.status == 0, "\(setTabs.output.stderr)")
        #expect(setTabs.output.stderr.contains("the cookie tab of 127.0.0.1 holds a tab, which a cookie file cannot hold: not written"), "\(setTabs.output.stderr)")
        #expect(setTabs.output.stderr.contains("the cookie tabpath of 127.0.0.1 holds a tab"), "\(setTabs.output.stderr)")
        let readBack = await get(server.url("/headers"), ["-b", tabbed])
        #expect(readBack.status == 0, "\(readBack.output.stderr)")
        #expect(readBack.output.stdout.contains(#""cookie":"plain=1""#), "\(readBack.output.stdout)")
        // NAME=VALUE is sent as it is.
        let literal = await get(server.url("/headers"), ["-b", "a=1; b=2"])
        #expect(literal.output.stdout.contains(#""cookie":"a=1; b=2""#), "\(literal.output.stdout)")
        // A file with CRLF line ends (written on Windows) is read line by line: it was one line,
        // a comment, and its cookies silently went nowhere.
        try "# Netscape HTTP Cookie File\r\n127.0.0.1\tFALSE\t/\tFALSE\t0\tcrlf\tyes\r\n".write(toFile: jar, atomically: true, encoding: .utf8)
        let crlf = await get(server.url("/headers"), ["-b", jar])
        #expect(crlf.output.stdout.contains(#""cookie":"crlf=yes""#), "\(crlf.output.stdout)")
        // An expiry at the end of 64-bit time (curl keeps it as such) is read as the last second
        // of year 9999 and written back so: it stopped tsec with a trap converting it back.
        try "127.0.0.1\tFALSE\t/\tFALSE\t9223372036854775807\tforever\tyes\n".write(toFile: jar, atomically: true, encoding: .utf8)
        let forever = await get(server.url("/headers"), ["-b", jar, "-c", jar])
        #expect(forever.status == 0, "\(forever.output.stderr)")
        #expect(forever.output.stdout.contains(#""cookie":"forever=yes""#), "\(forever.output.stdout)")
        #expect(try String(contentsOfFile: jar, encoding: .utf8).contains("\t253402300799\tforever\tyes\n"))
        // A cookie file that is not one is refused before anything is sent.
        try "127.0.0.1\tMAYBE\t/\tFALSE\t0\tname\tvalue\n".write(toFile: jar, atomically: true, encoding: .utf8)
        let malformed = await get(server.url("/headers"), ["-b", jar])
        #expect(malformed.status == 2)
        #expect(malformed.output.stderr == "tsec get: \(jar), line 1: the second and fourth fields must be TRUE or FALSE\n")
        // Nor is a line whose Cookie field would carry other cookies, or go to no host.
        for (line, reason) in [
            ("127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tx; admin=1", "the value of sid holds ';', which a Cookie field cannot carry"),
            ("127.0.0.1\tFALSE\t/\tFALSE\t0\tadmin=1; sid\tx", "the name 'admin=1; sid' holds '=' or ';', which a Cookie field cannot carry"),
            // A ';' followed by a combining mark is one Character, still a ';' byte.
            ("127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tx;\u{301} admin=1", "the value of sid holds ';', which a Cookie field cannot carry"),
            ("127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tx\u{1}y", "it holds the control character U+0001, which no cookie has"),
            ("exa mple.test\tFALSE\t/\tFALSE\t0\tsid\tx", "the domain has the character ' ', which no host name has"),
        ] {
            try (line + "\n").write(toFile: jar, atomically: true, encoding: .utf8)
            let refused = await get(server.url("/headers"), ["-b", jar])
            #expect(refused.status == 2)
            #expect(refused.output.stderr == "tsec get: \(jar), line 1: \(reason)\n")
        }
        // Case and a leading dot are the domain's spelling only.
        try "127.0.0.1\tFALSE\t/\tFALSE\t0\tbase64\tYQ==\nLOCALHOST\tFALSE\t/\tFALSE\t0\tupper\t1\n".write(toFile: jar, atomically: true, encoding: .utf8)
        #expect(await get(server.url("/headers"), ["-b", jar]).output.stdout.contains(#""cookie":"base64=YQ==""#))
        #expect(await get(server.url("/headers", host: "localhost"), ["-b", jar, "--no-domain-validation"]).output.stdout.contains(#""cookie":"upper=1""#))
        // A cookie for every domain under a public suffix (".com", or curl's ".localhost") goes to that name alone.
        try "# a comment\n\n.com\tTRUE\t/\tFALSE\t0\tname\tvalue\n.localhost\tTRUE\t/\tFALSE\t0\tlocal\t1\n".write(toFile: jar, atomically: true, encoding: .utf8)
        let suffix = await get(server.url("/headers", host: "localhost"), ["-b", jar, "-c", jar, "--no-domain-validation"])
        #expect(suffix.status == 0, "\(suffix.output.stderr)")
        #expect(suffix.output.stdout.contains(#""cookie":"local=1""#), "\(suffix.output.stdout)")
        let rewritten = try String(contentsOfFile: jar, encoding: .utf8)
        #expect(rewritten.contains("\ncom\tFALSE\t/\tFALSE\t0\tname\tvalue\n") && rewritten.contains("\nlocalhost\tFALSE\t/"), "\(rewritten)")
        await server.stop()
    }

    @Test("cookie files are curl's: curl sends what tsec get -c wrote, and tsec get -b sends what curl -c wrote")
    func cookieFilesWithCurl() async throws {
        let server = try await HTTPTestServer(chain: nil)
        let ours = files.path("ours-\(UUID().uuidString).txt")
        _ = await tsec(["get", server.url("/set-cookie").absoluteString, "-c", ours, "-H", "X-Set-Cookie: from=tsec; Path=/", "-H", "X-Set-Cookie: kept=1; Max-Age=600"])
        let curlSent = try shell("curl -s -b '\(ours)' '\(server.url("/headers"))'")
        #expect(curlSent.contains(#""cookie":"from=tsec; kept=1""#) || curlSent.contains(#""cookie":"kept=1; from=tsec""#), "\(curlSent)")
        let theirs = files.path("theirs-\(UUID().uuidString).txt")
        _ = try shell("curl -s -c '\(theirs)' -H 'X-Set-Cookie: from=curl; Path=/' '\(server.url("/set-cookie"))'")
        let ourSent = await tsec(["get", server.url("/headers").absoluteString, "-b", theirs])
        #expect(ourSent.output.stdout.contains(#""cookie":"from=curl""#), "\(ourSent.output.stdout)")
        await server.stop()
    }

    @Test("--hsts keeps known hosts in curl's HSTS file: each of tsec and curl follows what the other noted; a malformed file is refused naming the line")
    func hsts() async throws {
        // Certificates valid now: curl has no --at.
        let current = try TrustLab(pki: PKI(now: Date()))
        let leaf = try current.pki.issue(.server("hsts", dnsNames: ["hsts.example.test", "www.hsts.example.test"]), by: current.intermediate)
        let server = try await HTTPTestServer(chain: [leaf, current.intermediate])
        defer { Task { await server.stop() } }
        let port = server.port
        let roots = try files.write("hsts-roots.pem", current.root.pemString)
        let names = ["hsts.example.test", "www.hsts.example.test"]
        let resolve = names.flatMap { ["--resolve", "\($0):\(port):127.0.0.1"] }
        func sts(_ value: String) -> String {
            "https://hsts.example.test:\(port)/header?name=Strict-Transport-Security&value=" + value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        func ours(_ url: String, _ arguments: [String]) async -> (status: Int32, output: CommandOutput) {
            await tsec(["get", url, "--system-roots", roots] + resolve + arguments)
        }
        let curlResolve = resolve.joined(separator: " ")

        let file = files.path("tsec.hsts")
        #expect(await ours(sts("max-age=600; includeSubDomains"), ["--hsts", file]).status == 0)
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written.contains("\n.hsts.example.test \""), "\(written)")
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
        let http = "http://www.hsts.example.test:\(port)/hello"
        #expect(await ours(http, ["--hsts", file]).output.stdout == "hello")
        #expect(await ours(http, []).status == 3, "without the file, http goes in the clear to a TLS port")
        // --hsts '' keeps the hosts for the run only: a redirect to http that says
        // Strict-Transport-Security is followed over https; without HSTS it is refused.
        let encoded = "http://hsts.example.test:\(port)/hello".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let redirectToHTTP = "https://hsts.example.test:\(port)/redirect?sts=max-age%3D60&to=" + encoded
        let inMemory = await ours(redirectToHTTP, ["--hsts", ""])
        #expect(inMemory.status == 0 && inMemory.output.stdout == "hello", "\(inMemory.output.stderr)")
        #expect(await ours(redirectToHTTP, []).status == 3)
        #expect(await tsec(["get", http, "-c", ""]).status == 2)
        let curlFollows = try shell("curl -s --hsts '\(file)' --cacert '\(roots)' \(curlResolve) '\(http)'")
        #expect(curlFollows == "hello")

        let theirs = files.path("curl.hsts")
        _ = try shell("curl -s -o /dev/null --hsts '\(theirs)' --cacert '\(roots)' \(curlResolve) '\(sts("max-age=600"))'")
        #expect(await ours("http://hsts.example.test:\(port)/hello", ["--hsts", theirs]).output.stdout == "hello")

        // A cache or cookie file that could not be written at the end is refused before anything is sent.
        let counted = server.url("/flaky?key=\(UUID().uuidString)&failures=0")
        for option in ["--hsts", "-c"] {
            for unwritable in ["/nonexistent-folder/cache", files.directory] {
                let refusal = await tsec(["get", counted.absoluteString, option, unwritable])
                #expect(refusal.status == 2, "\(option) \(unwritable)")
                #expect(refusal.output.stderr.contains("cannot write \(unwritable)") || refusal.output.stderr.contains("\(unwritable) cannot be read: it is a directory"), "\(refusal.output.stderr)")
            }
        }
        #expect(server.tally.count(URLComponents(url: counted, resolvingAgainstBaseURL: false)!.queryItems!.first!.value!) == 0)

        // A permanent entry (curl writes "unlimited" for them) is read and written back as such.
        let permanent = try files.write("permanent.hsts", "  # comment\r\n\r\nwww.hsts.example.test \"unlimited\"\r\n")
        #expect(await ours(http, ["--hsts", permanent]).output.stdout == "hello")
        #expect(try String(contentsOfFile: permanent, encoding: .utf8).contains("\nwww.hsts.example.test \"unlimited\"\n"))

        for (line, reason) in [
            ("example.com \"20261301 00:00:00\"", "the expiry '20261301 00:00:00' is not YYYYMMDD HH:MM:SS"),
            ("example.com 20261201 00:00:00", "the expiry is not in double quotes"),
            ("example.com", "no expiry after the host"),
            ("exa mple.com \"unlimited\"", "the expiry is not in double quotes"),
            ("https://example.com/ \"unlimited\"", "'https://example.com/' is not a host name"),
        ] {
            let malformed = try files.write("bad.hsts", "# comment\n\(line)\n")
            let refused = await ours(http, ["--hsts", malformed])
            #expect(refused.status == 2)
            #expect(refused.output.stderr.contains("bad.hsts, line 2: \(reason)"), "\(line): \(refused.output.stderr)")
        }
    }

    @Test("-F sends a multipart form as curl does: text fields, files with a guessed or given type and name, a file's content as a value")
    func multipartForm() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let report = try files.write("report.csv", "a,b\n1,2\n")
        let note = try files.write("note.txt", "from a file")
        let sent = await get(server.url("/echo"), ["-i", "-F", "title=Q3", "-F", "data=@\(report)", "-F", "raw=@\(report);type=text/x-test;filename=renamed.csv", "-F", "note=<\(note)"])
        #expect(sent.status == 0, "\(sent.output.stderr)")
        let text = sent.output.stdout
        #expect(text.contains("X-Method: POST\n"))
        let boundary = try #require(text.components(separatedBy: "Content-Type: multipart/form-data; boundary=").dropFirst().first?.prefix { !$0.isNewline })
        #expect(text.contains("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nQ3\r\n"), "\(text)")
        #expect(text.contains("Content-Disposition: form-data; name=\"data\"; filename=\"report.csv\"\r\nContent-Type: text/csv\r\n\r\na,b\n1,2\n\r\n"))
        #expect(text.contains("Content-Disposition: form-data; name=\"raw\"; filename=\"renamed.csv\"\r\nContent-Type: text/x-test\r\n"))
        #expect(text.contains("Content-Disposition: form-data; name=\"note\"\r\n\r\nfrom a file\r\n"))
        #expect(text.hasSuffix("--\(boundary)--\r\n"))

        let both = await get(server.url("/echo"), ["-F", "a=1", "-d", "b=2"])
        #expect(both.status == 2 && both.output.stderr.contains("-F (a multipart form) and -d (a body of its own) cannot go together"))
        let missing = await get(server.url("/echo"), ["-F", "file=@/no/such/file"])
        #expect(missing.status == 2)
        #expect(missing.output.stderr == "tsec get: -F 'file=@/no/such/file': the file /no/such/file cannot be read: no such file\n")
        let malformed = await get(server.url("/echo"), ["-F", "novalue"])
        #expect(malformed.status == 2 && malformed.output.stderr.contains("-F 'novalue' is not NAME=VALUE, NAME=@FILE or NAME=<FILE"))
        await server.stop()
    }

    @Test("-T sends a file as the body, streamed, as a PUT unless -X says otherwise; it goes with neither -d nor -F")
    func uploadFile() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let file = try files.write("upload.txt", String(repeating: "line of an upload\n", count: 20_000))
        let put = await get(server.url("/echo"), ["-i", "-T", file, "-H", "Content-Type: text/plain"])
        #expect(put.status == 0, "\(put.output.stderr)")
        #expect(put.output.stdout.contains("X-Method: PUT\n"))
        #expect(put.output.stdout.hasSuffix("\n\n" + String(repeating: "line of an upload\n", count: 20_000)))
        let post = await get(server.url("/echo"), ["-i", "-T", file, "-X", "POST"])
        #expect(post.output.stdout.contains("X-Method: POST\n"))
        let both = await get(server.url("/echo"), ["-T", file, "-d", "x"])
        #expect(both.status == 2 && both.output.stderr.contains("-T (a file as the body) goes with neither -d nor -F"))
        let missing = await get(server.url("/echo"), ["-T", "/no/such/upload"])
        #expect(missing.status == 2)
        #expect(missing.output.stderr == "tsec get: cannot send the upload file: /no/such/upload: No such file or directory\n")
        await server.stop()
    }

    @Test("-T - and -T of a named pipe send what comes as it comes, chunked (curl's -T -); a redirect that would need it again fails saying so")
    func streamedUpload() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let binary = Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("tsec").path
        let get = "'\(binary)' get --system-roots '\(files.path("system.pem"))' --at \(files.at)"
        let fromStandardInput = try shell("{ printf 'part one, '; sleep 0.3; printf 'part two'; } | \(get) -i -T - '\(server.url("/echo"))'")
        #expect(fromStandardInput.contains("X-Method: PUT"))
        #expect(fromStandardInput.hasSuffix("\r\n\r\npart one, part two") || fromStandardInput.hasSuffix("\n\npart one, part two"), "\(fromStandardInput)")
        let framing = try shell("printf 'x' | \(get) -T - '\(server.url("/headers"))'")
        #expect(framing.contains(#""transfer-encoding":"chunked""#), "\(framing)")
        let pipe = files.path("pipe-\(UUID().uuidString)")
        #expect(mkfifo(pipe, 0o600) == 0)
        let fromPipe = try shell("{ sleep 0.2; printf 'through a pipe' > '\(pipe)'; } & \(get) -T '\(pipe)' '\(server.url("/echo"))'")
        #expect(fromPipe == "through a pipe")
        let redirected = server.url("/redirect?status=307&to=/echo")
        let again = try shell("printf 'once' | \(get) -T - '\(redirected)' 2>&1; echo \" exit $?\"")
        #expect(again.contains("sent once already and cannot be sent again"), "\(again)")
        #expect(again.hasSuffix(" exit 2\n"))
        await server.stop()
    }

    @Test("-O writes the body to a file of the current directory named as the URL's last path segment, as the URL writes it; a URL without one, or with -o, is refused")
    func remoteName() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let folder = files.path("remote-name-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let binary = Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("tsec").path
        let command = "cd '\(folder)' && '\(binary)' get --system-roots '\(files.path("system.pem"))' --at \(files.at)"
        let saved = try shell("\(command) -O '\(server.url("/files/some%20report.txt?version=2"))'; echo \"exit $?\"")
        #expect(saved == "exit 0\n", "nothing on standard output: \(saved)")
        #expect(try String(contentsOfFile: folder + "/some%20report.txt", encoding: .utf8) == "no such file")
        #expect(GetCommand.remoteFileName(of: "https://example.com/dir/file.tar.gz") == "file.tar.gz")
        for unnamed in ["https://example.com", "https://example.com/", "https://example.com/dir/", "https://example.com/..", "https://example.com/a/."] {
            #expect(GetCommand.remoteFileName(of: unnamed) == nil, "\(unnamed)")
        }
        let noName = await get(server.url("/"), ["-O"])
        #expect(noName.status == 2)
        #expect(noName.output.stderr.contains("has no file name at the end of its path"), "\(noName.output.stderr)")
        #expect(await get(server.url("/hello"), ["-O", "-o", files.path("x")]).status == 2)
        await server.stop()
    }

    @Test("-D writes the response's status line and header fields to a file (owner only) or, with '-', to standard output before the body; -D - with --json is refused")
    func dumpHeader() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let file = files.path("headers-\(UUID().uuidString).txt")
        let toFile = await get(server.url("/hello"), ["-D", file])
        #expect(toFile.output.stdout == "hello")
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written.hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(written.contains("Content-Type: text/plain\n"))
        #expect(written.hasSuffix("\n\n"))
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let toStandardOutput = await get(server.url("/hello"), ["-D", "-"])
        #expect(toStandardOutput.output.stdout.hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(toStandardOutput.output.stdout.hasSuffix("\n\nhello"))
        let withOutput = await get(server.url("/hello"), ["-D", "-", "-o", files.path("body-\(UUID().uuidString)")])
        #expect(withOutput.output.stdout.hasPrefix("HTTP/1.1 200 OK\n") && withOutput.output.stdout.hasSuffix("\n\n"))
        #expect(await get(server.url("/hello"), ["-D", "-", "--json"]).status == 2)
        #expect(await get(server.url("/hello"), ["-D", files.path("no/such/folder/headers.txt")]).status == 2)
        await server.stop()
    }

    @Test("--fail-with-body prints the body of a status of 400 or more and exits 22; -f with it is refused; -m is --max-time")
    func failWithBody() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let failing = await get(server.url("/status/404"), ["--fail-with-body"])
        #expect(failing.status == 22)
        #expect(failing.output.stdout == "status 404")
        #expect(failing.output.stderr == "tsec get: unacceptable HTTP status 404\n")
        let saved = files.path("failed-body-\(UUID().uuidString)")
        #expect(await get(server.url("/status/500"), ["--fail-with-body", "-o", saved]).status == 22)
        #expect(try String(contentsOfFile: saved, encoding: .utf8) == "status 500")
        #expect(await get(server.url("/hello"), ["--fail-with-body"]).status == 0)
        #expect(await get(server.url("/hello"), ["--fail-with-body", "-f"]).status == 2)
        let clock = ContinuousClock()
        let started = clock.now
        #expect(await get(server.url("/never"), ["-m", "0.3"]).status == 3)
        #expect(clock.now - started < .seconds(5))
        await server.stop()
    }

    @Test("--oauth2-bearer sends Authorization: Bearer, to the URL's server only (a redirect to another drops it); a -H of its own wins; not with -u")
    func bearerToken() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let sent = await get(server.url("/headers"), ["--oauth2-bearer", "t0ken"])
        #expect(sent.output.stdout.contains(#""authorization":"Bearer t0ken""#), "\(sent.output.stdout)")
        let own = await get(server.url("/headers"), ["--oauth2-bearer", "t0ken", "-H", "Authorization: Custom x"])
        #expect(own.output.stdout.contains(#""authorization":"Custom x""#), "\(own.output.stdout)")
        let elsewhere = server.url("/headers", host: "localhost").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let redirected = await get(server.url("/redirect?to=\(elsewhere)"), ["--oauth2-bearer", "t0ken"])
        #expect(redirected.status == 0, "\(redirected.output.stderr)")
        #expect(redirected.output.stdout.contains("user-agent") && !redirected.output.stdout.contains("authorization"), "\(redirected.output.stdout)")
        #expect(await get(server.url("/headers"), ["--oauth2-bearer", "t0ken", "-u", "a:b"]).status == 2)
        await server.stop()
    }

    @Test("--compressed asks for a compressed body and prints it decoded; without it the bytes come as sent")
    func compressed() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let decoded = await get(server.url("/gzipped"), ["--compressed"])
        #expect(decoded.status == 0 && decoded.output.stdout == String(repeating: "hello, compressed world\n", count: 100))
        let raw = await get(server.url("/gzipped"), ["-i"])
        #expect(raw.output.stdout.contains("Content-Encoding: gzip\n") && raw.output.stdout.contains("X-Accept-Encoding: none\n"))
        await server.stop()
    }

    @Test("-v tells on stderr what the session did: the trust decision, the connection, each request head after '> ', each response, redirects, the final response's head after '< '; without it nothing but the outcome")
    func verbose() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), http2: true)
        let told = await get(server.url("/redirect?to=/hello"), ["-v"])
        #expect(told.status == 0 && told.output.stdout == "hello")
        let lines = told.output.stderr.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.hasPrefix("* ") || $0.hasPrefix("< ") || $0.hasPrefix("> ") }, "\(lines)")
        // Each request head as sent, Host first, as curl's -v shows them.
        #expect(told.output.stderr.contains("> GET /redirect?to=/hello HTTP/2\n> Host: 127.0.0.1:\(server.port)\n> User-Agent: TransportSecurity/1\n> \n"), "\(told.output.stderr)")
        #expect(told.output.stderr.contains("> GET /hello HTTP/2\n"))
        // The final response's head, as curl's -v shows it.
        #expect(told.output.stderr.contains("< HTTP/2 200\n< content-type: text/plain\n< content-length: 5\n< \n"), "\(told.output.stderr)")
        #expect(lines.contains { $0.hasPrefix("* debug peer trusted decidedBy=SecurityPolicy rule 3") }, "\(lines)")
        #expect(lines.contains("* debug connected protocol=HTTP/2 tls=TLS 1.3 to=https://127.0.0.1:\(server.port)"), "\(lines)")
        // Each response with its timing: the first on a new connection, the redirect's target on it again.
        // (A busy machine may show the wait for the pool first: "queued 1.2 ms, connect …".)
        #expect(lines.contains { line in
            line.hasPrefix("* debug response request=GET https://127.0.0.1:\(server.port)/redirect?to=/hello status=302 Found timing=new connection: ")
                && line.contains("connect ") && line.contains("TLS ")
        }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("* debug redirect to=https://127.0.0.1:\(server.port)/hello") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("* debug response request=GET https://127.0.0.1:\(server.port)/hello status=200 OK timing=reused connection: waiting ") }, "\(lines)")
        let quiet = await get(server.url("/hello"))
        #expect(quiet.output.stderr.isEmpty)
        // Credentials are shown by their scheme only.
        let authorized = await get(server.url("/basic"), ["-v", "-u", "alice:wonderland"])
        #expect(authorized.status == 0)
        #expect(authorized.output.stderr.contains("> Authorization: Basic [hidden]\n"), "\(authorized.output.stderr)")
        #expect(!authorized.output.stderr.contains(Data("alice:wonderland".utf8).base64EncodedString()))
        // Cookies keep their names, API keys and tokens of custom fields are hidden whole, and so
        // are the cookie values a server sets; other fields are shown as they are.
        let keyed = await get(server.url("/set-cookie"), [
            "-v", "-H", "X-Api-Key: sk_live_7f3a", "-H", "X-Auth-Token: tok-9c2e", "-H", "Cookie: sid=s3cr3t-sid; theme=dark",
            "-H", "X-Set-Cookie: refresh=r3fr3sh; Path=/; HttpOnly", "-H", "X-Request-Id: req-42",
            "-H", "Authorization: sk_live_bare", "-H", "Idempotency-Key: order-7",
        ])
        #expect(keyed.status == 0)
        // An Authorization value without a known scheme may be the key itself: hidden whole. An
        // idempotency key names the request, not the client: shown.
        #expect(keyed.output.stderr.contains("> Authorization: [hidden]\n") && keyed.output.stderr.contains("> Idempotency-Key: order-7\n"), "\(keyed.output.stderr)")
        for secret in ["sk_live_7f3a", "tok-9c2e", "s3cr3t-sid", "r3fr3sh", "sk_live_bare"] {
            #expect(!keyed.output.stderr.contains(secret), "\(secret) shown: \(keyed.output.stderr)")
        }
        #expect(keyed.output.stderr.contains("> X-Api-Key: [hidden]\n") && keyed.output.stderr.contains("> X-Auth-Token: [hidden]\n"), "\(keyed.output.stderr)")
        #expect(keyed.output.stderr.contains("> Cookie: sid=[hidden]; theme=[hidden]\n"), "\(keyed.output.stderr)")
        #expect(keyed.output.stderr.lowercased().contains("< set-cookie: refresh=[hidden]; path=/; httponly\n"), "\(keyed.output.stderr)")
        #expect(keyed.output.stderr.contains("> X-Request-Id: req-42\n"))
        await server.stop()
    }

    @Test("trailer fields: in --json as trailers (absent when none came); after the body with -v (each after '< '), -i and -D, as curl shows them")
    func trailers() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let url = server.url("/trailers?x-checksum=abc&grpc-status=0")
        let report = await get(url, ["--json"])
        #expect(report.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.output.stdout.utf8)) as? [String: Any])
        let trailers = try #require(json["trailers"] as? [[String: String]])
        #expect(trailers == [["name": "x-checksum", "value": "abc"], ["name": "grpc-status", "value": "0"]])
        let none = await get(server.url("/hello"), ["--json"])
        #expect(!none.output.stdout.contains("\"trailers\""))
        let told = await get(url, ["-v"])
        #expect(told.output.stdout == "hello")
        #expect(told.output.stderr.hasSuffix("< x-checksum: abc\n< grpc-status: 0\n"), "\(told.output.stderr)")
        // -i and -D show them after the body, as curl's do.
        let included = await get(url, ["-i"])
        #expect(included.output.stdout.hasSuffix("\n\nhellox-checksum: abc\ngrpc-status: 0\n"), "\(included.output.stdout)")
        let dumped = files.path("trailers.head")
        let dumping = await get(url, ["-D", dumped])
        #expect(dumping.output.stdout == "hello")
        #expect(try String(contentsOfFile: dumped, encoding: .utf8).hasSuffix("\n\nx-checksum: abc\ngrpc-status: 0\n"))
        await server.stop()
    }

    @Test("pins: --mode/--pin and --pin-sha256 accept the legitimate server and reject the proxy with exit 1")
    func pinning() async throws {
        let legitimate = try await HTTPTestServer(chain: lab.loopbackChain())
        let proxy = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.proxyRoot))
        let pinRoot = ["--mode", "public-key", "--pin", files.path("root.pem")]
        #expect(await get(legitimate.url("/hello"), pinRoot).status == 0)
        let rejected = await get(proxy.url("/hello"), pinRoot)
        #expect(rejected.status == 1)
        #expect(rejected.output.stderr.contains("Public-key pinning failure!"))
        #expect(rejected.output.stdout.isEmpty)
        let spki = ["--pin-sha256", lab.root.der.spkiPin.description]
        #expect(await get(legitimate.url("/hello"), spki).status == 0)
        #expect(await get(proxy.url("/hello"), spki).status == 1)
        #expect(await get(legitimate.url("/hello"), ["--pin-sha256", "sha256/not-a-pin"]).status == 2)
        await legitimate.stop()
        await proxy.stop()
    }

    @Test("--json reports a failure on stdout too: its kind, the sentence, the exit status, the rejected decision whole, a timeout's limit and stage, a status -f refused")
    func jsonFailures() async throws {
        struct Failure: Decodable {
            struct Trust: Decodable { let trusted: Bool; let rule: Int }
            let error: String
            let message: String
            let exitStatus: Int32
            let trust: Trust?
            let timeoutMilliseconds: Double?
            let during: String?
            let status: Int?
        }
        func failure(_ run: (status: Int32, output: CommandOutput)) throws -> Failure {
            try JSONDecoder().decode(Failure.self, from: Data(run.output.stdout.utf8))
        }
        let proxy = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.proxyRoot))
        let rejected = await get(proxy.url("/hello"), ["--mode", "public-key", "--pin", files.path("root.pem"), "--json"])
        #expect(rejected.status == 1)
        let rejection = try failure(rejected)
        #expect(rejection.error == "trust_rejected")
        #expect(rejection.exitStatus == 1)
        #expect(rejection.trust?.trusted == false)
        #expect(rejection.trust?.rule == 6, "public-key pinning decided")
        #expect(rejected.output.stderr.contains(rejection.message))
        await proxy.stop()
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        // Long enough for the connection and handshake on a loaded machine (the stage expected is
        // the wait for the response).
        let slow = try failure(await get(server.url("/never"), ["--max-time", "2", "--json"]))
        #expect(slow.error == "timeout")
        #expect(slow.exitStatus == 3)
        #expect(slow.timeoutMilliseconds == 2000)
        #expect(slow.during == "sending the request to https://127.0.0.1:\(server.port) or waiting for its response")
        let refused = try failure(await get(server.url("/status/503"), ["-f", "--json"]))
        #expect(refused.error == "unacceptable_status")
        #expect(refused.status == 503)
        #expect(refused.exitStatus == 22)
        await server.stop()
    }

    @Test("--crlfile checks the leaf against CRLs from files, as curl's: a listed leaf exits 1, so does one whose issuer has no current list; a file may hold several PEM CRLs; an unreadable one exits 2")
    func crlFile() async throws {
        let chain = try lab.loopbackChain()
        let server = try await HTTPTestServer(chain: chain)
        defer { Task { await server.stop() } }
        let now = lab.pki.now
        func pem(_ issuer: IssuedCertificate, revoking: [IssuedCertificate], nextUpdate: TimeInterval = 3_600) throws -> String {
            let der = try issuer.revocationList(revoking: revoking, thisUpdate: now.addingTimeInterval(-60), nextUpdate: now.addingTimeInterval(nextUpdate))
            return PEMDocument(type: CertificateRevocationList.pemLabel, derBytes: der).pemString + "\n"
        }
        let revoking = try files.write("revoking.crl", pem(lab.intermediate, revoking: [chain[0]]))
        let refused = await get(server.url("/hello"), ["--crlfile", revoking])
        #expect(refused.status == 1)
        #expect(refused.output.stderr.contains("is revoked (listed in a CRL of the policy since"), "\(refused.output.stderr)")
        #expect(refused.output.stdout.isEmpty)

        // The root's list and the intermediate's in one file, plus a certificate block passed over.
        let both = try files.write("both.crl", pem(lab.root, revoking: []) + lab.root.pemString + "\n" + pem(lab.intermediate, revoking: [lab.leaf]))
        let allowed = await get(server.url("/hello"), ["--crlfile", both])
        #expect(allowed.status == 0, "\(allowed.output.stderr)")
        #expect(allowed.output.stdout == "hello")

        let rootOnly = try files.write("root.crl", pem(lab.root, revoking: []))
        let uncovered = await get(server.url("/hello"), ["--crlfile", rootOnly])
        #expect(uncovered.status == 1)
        #expect(uncovered.output.stderr.contains("no current revocation answer"), "\(uncovered.output.stderr)")
        let stale = try files.write("stale.crl", pem(lab.intermediate, revoking: [], nextUpdate: -30))
        #expect(await get(server.url("/hello"), ["--crlfile", stale]).status == 1)

        let garbage = try files.write("garbage.crl", "not a list")
        let unreadable = await get(server.url("/hello"), ["--crlfile", garbage])
        #expect(unreadable.status == 2)
        #expect(unreadable.output.stderr.contains(garbage), "\(unreadable.output.stderr)")
        let certificateOnly = await get(server.url("/hello"), ["--crlfile", files.path("root.pem")])
        #expect(certificateOnly.status == 2)
        #expect(certificateOnly.output.stderr.contains("no X509 CRL block"), "\(certificateOnly.output.stderr)")
        let broken = try files.write("broken.crl", pem(lab.root, revoking: []) + "-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n")
        let second = await get(server.url("/hello"), ["--crlfile", broken])
        #expect(second.status == 2)
        #expect(second.output.stderr.contains("CRL #2 of the file"), "\(second.output.stderr)")
        #expect(await get(server.url("/hello"), ["--crlfile", files.path("missing.crl")]).status == 2)
    }

    @Test("--revocation asks the OCSP responder of every certificate but the anchor: good exits 0, revoked exits 1; without an answer soft goes on (provisional in --json) and hard exits 1")
    func onlineRevocation() async throws {
        let responder = try await HTTPTestServer(chain: nil)
        defer { Task { await responder.stop() } }
        let profile = CertificateProfile.server("loopback", dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
        let leaf = try lab.pki.issue(profile.pointingTo(ocsp: responder.url("/ocsp").absoluteString), by: lab.intermediate)
        let server = try await HTTPTestServer(chain: [leaf, lab.intermediate])
        defer { Task { await server.stop() } }
        let now = lab.pki.now
        func answer(_ status: OCSPTestStatus) {
            responder.ocspResponder.answer = { [lab] request in
                try lab.intermediate.ocspResponse(to: request, at: now, nextUpdate: now.addingTimeInterval(3_600)) { _ in status }
            }
        }
        // The intermediate names no responder: under hard-fail, the root's CRL answers for it.
        let rootList = try lab.root.revocationList(revoking: [], thisUpdate: now.addingTimeInterval(-60), nextUpdate: now.addingTimeInterval(3_600))
        let rootCRL = try files.write("root-online.crl", PEMDocument(type: CertificateRevocationList.pemLabel, derBytes: rootList).pemString)

        answer(.good)
        let good = await get(server.url("/hello"), ["--revocation", "hard", "--crlfile", rootCRL])
        #expect(good.status == 0, "\(good.output.stderr)")
        #expect(good.output.stdout == "hello")
        let intermediateUnanswered = await get(server.url("/hello"), ["--revocation", "hard"])
        #expect(intermediateUnanswered.status == 1)
        #expect(intermediateUnanswered.output.stderr.contains(lab.intermediate.der.subjectSummary), "\(intermediateUnanswered.output.stderr)")

        answer(.revoked(now.addingTimeInterval(-60)))
        let revoked = await get(server.url("/hello"), ["--revocation", "soft"])
        #expect(revoked.status == 1)
        #expect(revoked.output.stderr.contains("is revoked"), "\(revoked.output.stderr)")

        responder.ocspResponder.answer = nil  // the responder fails (HTTP 500)
        let soft = await get(server.url("/hello"), ["--revocation", "soft", "--json"])
        #expect(soft.status == 0, "\(soft.output.stderr)")
        #expect(soft.output.stdout.contains("\"provisional\" : true"), "\(soft.output.stdout)")
        #expect(soft.output.stdout.contains("no answer, allowed (soft-fail)"))
        let hard = await get(server.url("/hello"), ["--revocation", "hard", "--crlfile", rootCRL])
        #expect(hard.status == 1)
        #expect(hard.output.stderr.contains("no current revocation answer"), "\(hard.output.stderr)")
        #expect(await get(server.url("/hello"), ["--revocation", "sometimes"]).status == 2)
    }

    @Test("--pinnedpubkey takes curl's forms: sha256// digests joined by ';', or a PEM or DER public key file (written by openssl); as in curl, the leaf's key must be one of them")
    func curlPinnedPublicKey() async throws {
        let chain = try lab.loopbackChain()
        let legitimate = try await HTTPTestServer(chain: chain)
        let proxy = try await HTTPTestServer(chain: lab.loopbackChain(issuedBy: lab.proxyRoot))
        let other = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()
        let digests = other + ";sha256//" + chain[0].der.spkiPin.base64
        #expect(await get(legitimate.url("/hello"), ["--pinnedpubkey", digests]).status == 0)
        #expect(await get(proxy.url("/hello"), ["--pinnedpubkey", digests]).status == 1)
        #expect(await get(legitimate.url("/hello"), ["--pinnedpubkey", other]).status == 1)
        // A CA's key is no pinned public key for curl: the root of the validated path does not count.
        let rootOnly = await get(legitimate.url("/hello"), ["--pinnedpubkey", "sha256//" + lab.root.der.spkiPin.base64])
        #expect(rootOnly.status == 1)
        #expect(rootOnly.output.stderr.contains("the leaf's public key is not pinned"), "\(rootOnly.output.stderr)")
        #expect(await get(legitimate.url("/hello"), ["--pin-sha256", lab.root.der.spkiPin.description]).status == 0, "--pin-sha256 matches the path")
        let leafFile = try files.write("loopback-\(UUID().uuidString).pem", chain[0].pemString)
        let pem = files.path("leaf-key-\(UUID().uuidString).pem")
        let der = files.path("leaf-key-\(UUID().uuidString).der")
        _ = try shell("openssl x509 -in '\(leafFile)' -pubkey -noout > '\(pem)' && openssl pkey -pubin -in '\(pem)' -outform der -out '\(der)'")
        for file in [pem, der] {
            #expect(await get(legitimate.url("/hello"), ["--pinnedpubkey", file]).status == 0, "\(file)")
            #expect(await get(proxy.url("/hello"), ["--pinnedpubkey", file]).status == 1, "\(file)")
        }
        for malformed in ["sha256//AAAA", other + ";sha1//AAAA", files.path("leaf.pem") + ".missing", try files.write("garbage-\(UUID().uuidString)", "not a key"), try files.write("no-key-\(UUID().uuidString).pem", "-----BEGIN X-----\nAAAA\n-----END X-----\n")] {
            let refused = await get(legitimate.url("/hello"), ["--pinnedpubkey", malformed])
            #expect(refused.status == 2, "\(malformed)")
            #expect(refused.output.stderr.contains("--pinnedpubkey"), "\(refused.output.stderr)")
        }
        await legitimate.stop()
        await proxy.stop()
    }

    @Test("--output writes the body to a file; --json reports status, headers, timing and the decision")
    func outputAndJSON() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let file = files.path("body.out")
        let saved = await get(server.url("/bytes/100000"), ["-o", file])
        #expect(saved.status == 0)
        #expect(saved.output.stdout.isEmpty)
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) == 100_000)
        let discarded = await get(server.url("/hello"), ["-o", "/dev/null"])
        #expect(discarded.status == 0)
        #expect((try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType) == .typeCharacterSpecial)
        let intoFolder = await get(server.url("/hello"), ["-o", files.directory])
        #expect(intoFolder.status == 2)
        #expect(intoFolder.output.stderr.contains("is a directory"))
        #expect(FileManager.default.fileExists(atPath: files.path("leaf.pem")), "the folder is left alone")
        let report = await get(server.url("/json"), ["--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.output.stdout.utf8)) as? [String: Any])
        #expect(json["status"] as? Int == 200)
        #expect((json["trust"] as? [String: Any])?["trusted"] as? Bool == true)
        #expect((json["timeMilliseconds"] as? Double).map { $0 > 0 } == true)
        let timing = try #require(json["timing"] as? [String: Any])
        #expect(timing["reusedConnection"] as? Bool == false)
        #expect((timing["tlsHandshakeMilliseconds"] as? Double).map { $0 > 0 } == true)
        #expect((timing["connectMilliseconds"] as? Double).map { $0 > 0 } == true)
        #expect(timing["waitingMilliseconds"] is Double && timing["downloadMilliseconds"] is Double && timing["queueingMilliseconds"] is Double)
        #expect(json["body"] as? String == #"{"name":"transport","count":3}"#)
        await server.stop()
    }

    @Test("user:password in the URL answers the server's challenge; --json shows the URL with the password as ***")
    func urlCredentials() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let url = URL(string: "https://alice:wonderland@127.0.0.1:\(server.port)/basic")!
        let plain = await get(url)
        #expect(plain.status == 0)
        #expect(plain.output.stdout == "welcome alice")
        let report = await get(url, ["--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.output.stdout.utf8)) as? [String: Any])
        #expect(json["url"] as? String == "https://alice:***@127.0.0.1:\(server.port)/basic")
        #expect(!report.output.stdout.contains("wonderland"))
        await server.stop()
    }

    @Test("-u USER:PASSWORD answers Basic and Digest challenges of the URL's server only; -u USER asks on the terminal without echo, and without a terminal says how to give it")
    func userOption() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let basic = await get(server.url("/basic"), ["-u", "alice:wonderland"])
        #expect(basic.status == 0)
        #expect(basic.output.stdout == "welcome alice")
        let digest = await get(server.url("/digest?algorithm=SHA-256"), ["-u", "alice:wonderland", "-i"])
        #expect(digest.output.stdout.hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(digest.output.stdout.hasSuffix("welcome alice (digest)"))
        // -u wins over the URL's own credentials, as in curl; a wrong password leaves the 401.
        var withWrongUser = URLComponents(url: server.url("/basic"), resolvingAgainstBaseURL: false)!
        (withWrongUser.user, withWrongUser.password) = ("mallory", "guess")
        #expect(await get(withWrongUser.url!, ["-u", "alice:wonderland"]).output.stdout == "welcome alice")
        let wrong = await get(server.url("/basic"), ["-u", "alice:guess", "-i"])
        #expect(wrong.status == 0)
        #expect(wrong.output.stdout.hasPrefix("HTTP/1.1 401 Unauthorized\n"))
        // Another host (here, the same server by another name) never sees it.
        let elsewhere = server.url("/redirect?to=" + "https://localhost:\(server.port)/basic".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let redirected = await get(elsewhere, ["-u", "alice:wonderland", "-i"])
        #expect(redirected.output.stdout.contains("401 Unauthorized"), "\(redirected.output.stdout)")
        #expect(await get(server.url("/basic"), ["-u", ":wonderland"]).status == 2)

        let binary = Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("tsec").path
        let get = "'\(binary)' get --system-roots '\(files.path("system.pem"))' --at \(files.at) -u alice '\(server.url("/basic"))'"
        // On a terminal (a pseudo-terminal of Python's pty module, typing once the prompt is
        // shown): the prompt, the password read without echo, the body.
        let typist = """
            import os, pty, sys
            pid, fd = pty.fork()
            if pid == 0:
                os.execv("/bin/sh", ["sh", "-c", sys.argv[1]])
            seen = b""
            def more():
                global seen
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    chunk = b""
                seen += chunk
                return chunk
            while b"password" not in seen and more():
                pass
            os.write(fd, b"wonderland\\n")
            while more():
                pass
            os.waitpid(pid, 0)
            sys.stdout.write(seen.decode())
            """
        let typed = try shell("python3 -c '\(typist)' \"\(get)\"")
        #expect(typed.contains("Enter host password for user 'alice':"), "\(typed)")
        #expect(typed.contains("welcome alice"))
        #expect(!typed.contains("wonderland\r"), "the password was echoed: \(typed)")
        // Interrupted at the prompt (^C), the terminal has its echo back.
        let interrupter = """
            import os, pty, sys, termios, time
            pid, fd = pty.fork()
            if pid == 0:
                os.execv("/bin/sh", ["sh", "-c", "exec " + sys.argv[1]])
            seen = b""
            while b"password" not in seen:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
            time.sleep(0.2)
            print("silent" if not termios.tcgetattr(fd)[3] & termios.ECHO else "echoing")
            os.write(fd, b"\\x03")
            _, status = os.waitpid(pid, 0)
            print("echoing" if termios.tcgetattr(fd)[3] & termios.ECHO else "silent", os.WIFSIGNALED(status))
            """
        let interrupted = try shell("python3 -c '\(interrupter)' \"\(get)\"")
        #expect(interrupted == "silent\nechoing True\n", "\(interrupted)")
        // Without one (a new session has no controlling terminal): exit 2, saying what to do.
        let detached = try shell("setsid -w \(get) 2>&1; echo \" exit $?\"")
        #expect(detached.hasSuffix(" exit 2\n"), "\(detached)")
        #expect(detached.contains("there is no terminal to ask for it: give -u alice:PASSWORD"))
        await server.stop()
    }

    @Test("-C - continues the partial file of -o (curl's -C -); a broken transfer keeps what arrived for the next -C -; --retry continues within one run; -C takes '-' only, with -o and without --compressed")
    func continueAt() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let file = files.path("continued-\(UUID().uuidString)")
        let body = HTTPTestServer.rangedBody(size: 20_000)
        let breaking = server.url("/ranged?key=\(UUID().uuidString)&size=20000&cuts=1&cut=6000")
        let broken = await get(breaking, ["-o", file, "-C", "-"])
        #expect(broken.status == 3)
        #expect(FileManager.default.contents(atPath: file) == Data(body[..<6000]))
        let continued = await get(breaking, ["-o", file, "-C", "-", "--json"])
        #expect(continued.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(continued.output.stdout.utf8)) as? [String: Any])
        #expect(json["status"] as? Int == 206)
        #expect(FileManager.default.contents(atPath: file) == Data(body))
        // Already whole: the server's 416 leaves the file, and that is a success.
        let whole = await get(breaking, ["-o", file, "-C", "-", "-w", "%{http_code} %{size_download}"])
        #expect(whole.status == 0)
        #expect(whole.output.stdout == "416 0")
        #expect(FileManager.default.contents(atPath: file) == Data(body))
        // -w counts what this run added to the file.
        try Data(body[..<5000]).write(to: URL(fileURLWithPath: file))
        #expect(await get(breaking, ["-o", file, "-C", "-", "-w", "%{http_code} %{size_download}"]).output.stdout == "206 15000")

        // One run with --retry: a strong ETag lets the second attempt ask for the rest only.
        let retried = files.path("retried-\(UUID().uuidString)")
        let withTag = server.url("/ranged?key=\(UUID().uuidString)&size=20000&etag=t&cuts=1&cut=6000")
        let once = await get(withTag, ["-o", retried, "--retry", "2", "--retry-delay", "0.01", "-v"])
        #expect(once.status == 0)
        #expect(once.output.stderr.contains("resuming the download"), "\(once.output.stderr)")
        #expect(FileManager.default.contents(atPath: retried) == Data(body))

        for refused in [["-C", "-"], ["-C", "100", "-o", file], ["-C", "-", "-o", file, "--compressed"]] {
            let result = await get(server.url("/hello"), refused)
            #expect(result.status == 2, "\(refused)")
        }
        await server.stop()
    }

    @Test("-w prints curl's variables once the transfer is over, failed or not: codes, sizes (downloaded and uploaded), redirects, times, headers, %{stderr}; an unknown variable is refused before anything is sent")
    func writeOut() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let redirected = await get(server.url("/redirect?to=/hello"), ["-w", #"|%{http_code} %{http_version} %{size_download} %{num_redirects} %{num_retries} %{url_effective} %{content_type}|%header{content-length}|100%%\t%{exitcode}\n"#])
        #expect(redirected.status == 0)
        #expect(redirected.output.stdout == "hello|200 1.1 5 1 0 \(server.url("/hello").absoluteString) text/plain|5|100%\t0\n")

        let discarded = await get(server.url("/bytes/100000"), ["-o", "/dev/null", "-w", "%{http_code} %{size_download} %{num_connects} %{ssl_verify_result}"])
        #expect(discarded.output.stdout == "200 100000 1 0")

        // What went up: the body's bytes (a 300 KB file, in parts), and none for a GET.
        let upload = try files.write("upload.bin", String(repeating: "x", count: 300_000))
        let uploaded = await get(server.url("/echo"), ["-T", upload, "-o", "/dev/null", "-w", "%{size_upload} %{speed_upload}"])
        #expect(uploaded.output.stdout.split(separator: " ").first == "300000", "\(uploaded.output.stdout)")
        #expect((Int(uploaded.output.stdout.split(separator: " ").last ?? "") ?? 0) > 0)
        #expect(await get(server.url("/hello"), ["-o", "/dev/null", "-w", "%{size_upload}"]).output.stdout == "0")
        #expect(await get(server.url("/echo"), ["-d", "hello", "-o", "/dev/null", "-w", "%{size_upload}"]).output.stdout == "5")

        let timed = await get(server.url("/hello"), ["-o", "/dev/null", "-w", "%{time_connect} %{time_appconnect} %{time_pretransfer} %{time_starttransfer} %{time_total} %{speed_download}"])
        let times = timed.output.stdout.split(separator: " ").compactMap { Double($0) }
        #expect(times.count == 6, "\(timed.output.stdout)")
        #expect(timed.output.stdout.split(separator: " ")[0].split(separator: ".").last?.count == 6)
        #expect(times[0] > 0 && times[0] <= times[1] && times[1] <= times[2] && times[2] <= times[3] && times[3] <= times[4], "\(times)")

        // After a failure: no status (000), the exit status and the error; a rejected
        // certificate sets ssl_verify_result.
        let port = try await {
            let closed = try await HTTPTestServer(chain: nil)
            let port = closed.port
            await closed.stop()
            return port
        }()
        let refused = await get(URL(string: "https://127.0.0.1:\(port)/")!, ["-w", "%{http_code} %{exitcode} %{errormsg}"])
        #expect(refused.status == 3)
        #expect(refused.output.stdout.hasPrefix("000 3 connection failed: "), "\(refused.output.stdout)")
        let mispinned = await get(server.url("/hello"), ["--pin-sha256", "sha256/" + Data(repeating: 1, count: 32).base64EncodedString(), "-w", "%{ssl_verify_result} %{exitcode}"])
        #expect(mispinned.output.stdout == "1 1")

        // %{stderr} sends what follows to standard error; the format may come from a file.
        let split = await get(server.url("/hello"), ["-w", "out %{stderr}err %{http_code}"])
        #expect(split.output.stdout == "helloout ")
        #expect(split.output.stderr == "err 200")
        let formatFile = try files.write("format-\(UUID().uuidString)", "%{http_code}\\n")
        #expect(await get(server.url("/hello"), ["-w", "@" + formatFile]).output.stdout == "hello200\n")

        for (format, complaint) in [("%{http_status}", "unknown variable %{http_status}"), ("%{http_code", "has no closing '}'"), ("%header{}", "names no field")] {
            let refusedFormat = await get(server.url("/hello"), ["-w", format])
            #expect(refusedFormat.status == 2, "\(format)")
            #expect(refusedFormat.output.stderr.contains(complaint), "\(refusedFormat.output.stderr)")
            #expect(refusedFormat.output.stdout.isEmpty)
        }
        await server.stop()
    }

    @Test("curl's everyday options: -I, -A, -L and --max-redirs, -f (exit 22, nothing printed or written), -s and -sS, -k (pins still apply), --cacert")
    func curlEverydayOptions() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let head = await get(server.url("/hello"), ["-I"])
        #expect(head.status == 0)
        #expect(head.output.stdout.hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(head.output.stdout.hasSuffix("\n\n"), "a HEAD response has no body: \(head.output.stdout)")
        #expect(await get(server.url("/hello"), ["-I", "-d", "x"]).status == 2)
        let agent = await get(server.url("/headers"), ["-A", "partner-sync/2.1"])
        #expect(agent.output.stdout.contains(#""user-agent":"partner-sync\/2.1""#) || agent.output.stdout.contains("partner-sync/2.1"), "\(agent.output.stdout)")
        #expect(!agent.output.stdout.contains("TransportSecurity/1"))

        let twice = server.url("/redirect?to=" + "/redirect?to=/hello".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        #expect(await get(twice, ["-L"]).output.stdout == "hello")
        #expect(await get(twice, ["-L", "--max-redirs", "2"]).output.stdout == "hello")
        let tooMany = await get(twice, ["--max-redirs", "1"])
        #expect(tooMany.status == 3)
        #expect(tooMany.output.stderr.contains("more than 1 redirects"), "\(tooMany.output.stderr)")
        #expect(await get(twice, ["--max-redirs", "101"]).status == 2)

        let output = files.path("failed-\(UUID().uuidString)")
        for arguments in [["-f"], ["-f", "-o", output], ["-f", "--json"], ["-f", "-i"]] {
            let failed = await get(server.url("/status/404"), arguments)
            #expect(failed.status == 22, "\(arguments)")
            if arguments.contains("--json") {
                // The failure's report, not the response.
                #expect(failed.output.stdout.contains(#""error" : "unacceptable_status""#), "\(failed.output.stdout)")
                #expect(!failed.output.stdout.contains(#""body""#), "\(failed.output.stdout)")
            } else {
                #expect(failed.output.stdout.isEmpty, "\(arguments): \(failed.output.stdout)")
            }
            #expect(failed.output.stderr.contains("404"))
        }
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(await get(server.url("/status/302"), ["-f"]).status == 0)
        #expect(await get(server.url("/status/404"), ["-f", "-s"]).output.stderr.isEmpty)
        #expect(await get(server.url("/status/404"), ["-f", "-s", "-S"]).output.stderr.contains("404"))
        let silentFailure = await get(URL(string: "https://127.0.0.1:1/")!, ["-s"])
        #expect(silentFailure.status == 3)
        #expect(silentFailure.output.stderr.isEmpty)

        // -k: a leaf for another name from an unknown root passes, a mispinned one does not.
        let stranger = try await HTTPTestServer(chain: [try lab.pki.issue(.server("stranger", dnsNames: ["stranger.test"]), by: lab.proxyRoot)])
        #expect(await get(stranger.url("/hello")).status == 1)
        #expect(await get(stranger.url("/hello"), ["-k"]).output.stdout == "hello")
        let mispinned = await get(stranger.url("/hello"), ["-k", "--pin-sha256", lab.root.der.spkiPin.description])
        #expect(mispinned.status == 1)
        await stranger.stop()

        // --cacert is --system-roots by curl's name; both at once are refused.
        let cacert = await tsec(["get", server.url("/hello").absoluteString, "--cacert", files.path("system.pem"), "--at", files.at])
        #expect(cacert.status == 0)
        #expect(cacert.output.stdout == "hello")
        #expect(await get(server.url("/hello"), ["--cacert", files.path("system.pem")]).status == 2)
        await server.stop()
    }

    @Test("a large upload waits for 100 Continue as curl's does, so a challenge costs no upload; --expect100-timeout 0 sends it at once; a bad timeout exits 2")
    func expectContinue() async throws {
        let file = try files.write("large-\(UUID().uuidString)", String(repeating: "x", count: 2 << 20))
        for (arguments, onceOnly) in [([String](), true), (["--expect100-timeout", "0"], false)] {
            let server = try await HTTPTestServer(chain: lab.loopbackChain())
            let result = await get(server.url("/basic"), ["-T", file, "-u", "alice:wonderland"] + arguments)
            #expect(result.status == 0, "\(result.output.stderr)")
            #expect(result.output.stdout == "welcome alice")
            #expect((server.receivedBodyBytes.total == 2 << 20) == onceOnly, "\(arguments): \(server.receivedBodyBytes.total)")
            await server.stop()
        }
        #expect(await get(URL(string: "https://127.0.0.1:1/")!, ["--expect100-timeout", "-1"]).status == 2)
    }

    @Test("--connect-timeout bounds making the connection alone: a server that never completes the connection fails after it, not after --max-time")
    func connectTimeout() async throws {
        let silent = try SilentListener()
        let clock = ContinuousClock()
        let started = clock.now
        let result = await get(URL(string: "https://127.0.0.1:\(silent.port)/")!, ["--connect-timeout", "0.4", "--max-time", "30"])
        let elapsed = clock.now - started
        #expect(result.status == 3)
        #expect(result.output.stderr.contains("timed out"), "\(result.output.stderr)")
        #expect(elapsed < .seconds(10))
        #expect(await get(URL(string: "https://127.0.0.1:1/")!, ["--connect-timeout", "0"]).status == 2)
    }

    @Test("--resolve connects to an address for a host name that is still sent and verified")
    func resolve() async throws {
        let server = try await HTTPTestServer(chain: lab.chain(.legitimate))
        let url = server.url("/hello", host: lab.host)
        let resolved = await get(url, ["--resolve", "\(lab.host):\(server.port):127.0.0.1"])
        #expect(resolved.status == 0, "\(resolved.output.stderr)")
        #expect(resolved.output.stdout == "hello")
        // Another port is not overridden: the .test name does not resolve.
        #expect(await get(url, ["--resolve", "\(lab.host):\(server.port + 1):127.0.0.1", "--max-time", "5"]).status == 3)
        // The name verified is the URL's: the same server reached as another name is refused.
        let other = await get(server.url("/hello", host: "other.example.test"), ["--resolve", "other.example.test:\(server.port):127.0.0.1"])
        #expect(other.status == 1)
        for (malformed, reason) in [
            ("api.example.test:127.0.0.1", "not HOST:PORT:ADDRESS"),
            ("api.example.test:http:127.0.0.1", "the port 'http' is not a number from 1 to 65535"),
            (":443:127.0.0.1", "not HOST:PORT:ADDRESS"),
            ("api.example.test:443:", "no ADDRESS follows HOST:PORT:"),
            // An override that could never apply, or would reach another address than it says.
            ("api example.test:443:127.0.0.1", "its host has the character ' ', which no host name has"),
            ("api.example.test:443:127.0.0.1\u{0}.evil", "its address has the character U+0000, which no host name has"),
        ] {
            let result = await get(url, ["--resolve", malformed])
            #expect(result.status == 2, "\(malformed)")
            #expect(result.output.stderr.contains("Error: --resolve '\(malformed)': \(reason)\n"), "\(result.output.stderr)")
        }
        await server.stop()
    }

    @Test("a reader that goes away (tsec get … | head) ends tsec by SIGPIPE, as any Unix tool, not by a crash; -d @- reads stdin")
    func closedStandardOutput() async throws {
        let binary = Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("tsec").path
        try #require(FileManager.default.isExecutableFile(atPath: binary))
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let get = "'\(binary)' get --system-roots '\(files.path("system.pem"))' --at \(files.at)"
        // swift-nio ignores SIGPIPE, so the write after `true` has exited fails with EPIPE.
        let status = try shell("{ sleep 0.3; \(get) '\(server.url("/bytes/100000"))' 2>/dev/null; } | true; echo ${PIPESTATUS[0]}")
        #expect(status == "141\n")
        let echoed = try shell("printf 'from stdin' | \(get) -X PUT -d @- '\(server.url("/echo"))'")
        #expect(echoed == "from stdin")
        await server.stop()
    }

    @Test("--retry tries transient failures again (--retry-delay, --retry-max-time, --retry-all-errors, --retry-connrefused as curl's); --json counts the attempts; -v tells why")
    func retries() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        func flaky(_ query: String) -> URL { server.url("/flaky?key=\(UUID().uuidString)&\(query)") }
        let recovered = await get(flaky("failures=2"), ["--retry", "3", "--retry-delay", "0.01", "-v"])
        #expect(recovered.status == 0)
        #expect(recovered.output.stdout == "recovered on request 3, X-Attempt none")
        #expect(recovered.output.stderr.contains("retrying"), "\(recovered.output.stderr)")
        #expect(recovered.output.stderr.contains("status 503"))
        let counted = await get(flaky("failures=1&status=429"), ["--retry", "1", "--retry-delay", "0", "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(counted.output.stdout.utf8)) as? [String: Any]
        #expect(report?["attempts"] as? Int == 2)
        #expect(report?["status"] as? Int == 200)
        // Out of retries, or a wait that would end past --retry-max-time: the failure's answer is printed.
        let exhausted = await get(flaky("failures=5"), ["--retry", "1", "--retry-delay", "0"])
        #expect(exhausted.status == 0)
        #expect(exhausted.output.stdout == "failure on request 2")
        let bounded = await get(flaky("failures=1"), ["--retry", "3", "--retry-delay", "2", "--retry-max-time", "1"])
        #expect(bounded.output.stdout == "failure on request 1")
        // A POST that reached the server is not sent twice.
        let posted = await get(flaky("failures=1"), ["--retry", "3", "--retry-delay", "0", "-d", "x=1"])
        #expect(posted.output.stdout == "failure on request 1")
        // --retry-all-errors: the POST goes again; with -f, so does a 404 (without it, a 404 is an answer).
        let postedAgain = await get(flaky("failures=1"), ["--retry", "3", "--retry-delay", "0", "--retry-all-errors", "-d", "x=1"])
        #expect(postedAgain.output.stdout == "recovered on request 2, X-Attempt none")
        let notFound = await get(flaky("failures=1&status=404"), ["--retry", "3", "--retry-delay", "0", "--retry-all-errors", "-f"])
        #expect(notFound.status == 0)
        #expect(notFound.output.stdout == "recovered on request 2, X-Attempt none")
        let answered = await get(flaky("failures=1&status=404"), ["--retry", "3", "--retry-delay", "0", "--retry-all-errors"])
        #expect(answered.output.stdout == "failure on request 1")
        let dropped = await get(flaky("failures=1&drop=1"), ["--retry", "2", "--retry-delay", "0", "--retry-all-errors", "--retry-connrefused", "-X", "PATCH", "-d", "x"])
        #expect(dropped.output.stdout == "recovered on request 2, X-Attempt none", "\(dropped.output.stderr)")
        for bad in [["--retry", "-1"], ["--retry-delay", "1"], ["--retry", "2", "--retry-delay", "nan"], ["--retry", "2", "--retry-max-time", "0"], ["--retry-all-errors"], ["--retry-connrefused"]] {
            let refused = await get(server.url("/hello"), bad)
            #expect(refused.status == 2, "\(bad)")
            #expect(refused.output.stderr.contains("--retry"), "\(bad): \(refused.output.stderr)")
        }
    }

    @Test("--idempotency-key: one key for every attempt, so --retry sends a POST again after its answer was lost, and after a 409; a failure prints the key; -H's own key is kept")
    func idempotencyKeys() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        defer { Task { await server.stop() } }
        let lost = await get(server.url("/payments?lose=1&busy=1"), ["--idempotency-key", "--retry", "3", "--retry-delay", "0", "-d", "order-1", "--json"])
        #expect(lost.status == 0, "\(lost.output.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(lost.output.stdout.utf8)) as? [String: Any]
        #expect(report?["status"] as? Int == 201)
        // The 409 is retried on the connection kept alive; the answer lost there is sent again
        // on a new one by the session itself (a keyed request may be), within the same attempt.
        #expect(report?["attempts"] as? Int == 2)
        let key = try #require(report?["idempotencyKey"] as? String)
        #expect(key.hasPrefix("\"") && key.count == 38, "a quoted UUID: \(key)")
        #expect(server.payments.keys == [key, key, key])
        #expect(server.payments.created == 1)

        // Without a key the POST is not sent twice: the server wants one anyway.
        let unkeyed = await get(server.url("/payments"), ["--retry", "3", "--retry-delay", "0", "-d", "order-2"])
        #expect(unkeyed.output.stdout == "the request has no idempotency key")
        // -H's key is the one sent; out of retries, the failure names it for the next run.
        let given = await get(server.url("/payments?lose=5"), ["--idempotency-key", "-H", "Idempotency-Key: \"order-3\"", "--retry", "1", "--retry-delay", "0", "-d", "order-3"])
        #expect(given.status == 3)
        #expect(given.output.stderr.contains("send it again with the same key (-H 'Idempotency-Key: \"order-3\"')"), "\(given.output.stderr)")
        #expect(server.payments.requests(withKey: "\"order-3\"") == 2)
        let again = await get(server.url("/payments"), ["-H", "Idempotency-Key: \"order-3\"", "-d", "order-3", "--json"])
        let replay = try JSONSerialization.jsonObject(with: Data(again.output.stdout.utf8)) as? [String: Any]
        #expect((replay?["headers"] as? [[String: String]])?.contains { $0["name"] == "Idempotent-Replayed" } == true)
        #expect(server.payments.created == 2)
        // --json on a failure carries the key too.
        let failed = await get(server.url("/payments?lose=1"), ["--idempotency-key", "-d", "order-4", "--json"])
        let failure = try JSONSerialization.jsonObject(with: Data(failed.output.stdout.utf8)) as? [String: Any]
        #expect(failure?["error"] as? String == "connection_failed")
        #expect((failure?["idempotencyKey"] as? String)?.count == 38)
    }

    @Test("timeouts, refused connections and bodies over --max-filesize exit 3; bad input exits 2")
    func failures() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let fits = await get(server.url("/hello"), ["--max-filesize", "5"])
        #expect(fits.status == 0)
        #expect(fits.output.stdout == "hello")
        let tooLong = await get(server.url("/hello"), ["--max-filesize", "4"])
        #expect(tooLong.status == 3)
        #expect(tooLong.output.stdout.isEmpty)
        #expect(tooLong.output.stderr.contains("longer than 4 bytes"))
        #expect(await get(server.url("/hello"), ["--max-filesize", "-1"]).status == 2)
        // The body is printed as it arrives, not held: an endless one shows its first megabyte
        // before --max-filesize ends it, after the status line and headers with -i; with --json
        // it is held, and nothing is printed.
        let endless = await get(server.url("/endless"), ["--max-filesize", "1000000"])
        #expect(endless.status == 3)
        #expect(endless.output.stdout.utf8.count > 500_000)
        #expect(endless.output.stderr.contains("longer than 1000000 bytes"))
        let included = await get(server.url("/endless"), ["--max-filesize", "1000000", "-i"])
        #expect(included.status == 3)
        #expect(included.output.stdout.hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(included.output.stdout.utf8.count > 500_000)
        let held = await get(server.url("/endless"), ["--max-filesize", "1000000", "--json"])
        #expect(held.status == 3)
        #expect(!held.output.stdout.contains("endless"), "no body is printed")
        #expect(held.output.stdout.contains(#""error" : "response_too_large""#), "\(held.output.stdout)")
        let malformed = await get(server.url("/hello"), ["-H", "Bad Name: v"])
        #expect(malformed.status == 2)
        #expect(malformed.output.stderr.contains("invalid request"))
        let slow = await get(server.url("/never"), ["--max-time", "0.3"])
        #expect(slow.status == 3)
        #expect(slow.output.stderr.contains("timed out"))
        let port = server.port
        await server.stop()
        #expect(await get(URL(string: "https://127.0.0.1:\(port)/")!).status == 3)
        #expect(await tsec(["get", "not a url"]).status == 2)
        #expect(await get(URL(string: "https://127.0.0.1:1/")!, ["--client-cert", files.path("leaf.pem")]).status == 2)
        #expect(await get(URL(string: "https://127.0.0.1:1/")!, ["--system-roots", "/nonexistent.pem"]).status == 2)
    }

    /// A client CA and a client `name` it issued, written as `name.crt`, `name.key` and
    /// `name.p12` (by openssl, passphrase `alice-secret`).
    func clientFiles(named name: String) throws -> (clientCA: IssuedCertificate, certificate: String, key: String, p12: String) {
        let clientCA = try lab.pki.issueRoot(.certificateAuthority("Client CA"))
        let client = try lab.pki.issue(.client("alice"), by: clientCA)
        let certificate = try files.write("\(name).crt", client.pemString)
        let key = try files.write("\(name).key", try client.privateKeyPEM)
        let p12 = files.path("\(name).p12")
        _ = try shell("openssl pkcs12 -export -in '\(certificate)' -inkey '\(key)' -out '\(p12)' -passout pass:alice-secret")
        return (clientCA, certificate, key, p12)
    }

    @Test("PKCS#12 client identity with --passphrase-env / --passphrase-file, or none for a file under the empty one; PEM with an encrypted key; a wrong or missing passphrase exits 2")
    func clientIdentity() async throws {
        let (clientCA, certificate, key, p12) = try clientFiles(named: "alice")
        let passphraseFile = try files.write("passphrase.txt", "alice-secret\n")
        let verifier = PeerTrustVerifier.clients(of: clientCA, at: lab.pki.now)
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), clientVerifier: verifier)
        let viaFile = await get(server.url("/hello"), ["--client-identity", p12, "--passphrase-file", passphraseFile])
        #expect(viaFile.status == 0)
        #expect(viaFile.output.stdout == "hello")
        setenv("TSEC_TEST_P12_PASSPHRASE", "alice-secret", 1)
        #expect(await get(server.url("/hello"), ["--client-identity", p12, "--passphrase-env", "TSEC_TEST_P12_PASSPHRASE"]).status == 0)
        #expect(await get(server.url("/hello"), ["--client-cert", certificate, "--client-key", key]).status == 0)
        let encryptedKey = files.path("alice-encrypted.key")
        _ = try shell("openssl pkcs8 -topk8 -in '\(key)' -out '\(encryptedKey)' -passout pass:alice-secret")
        let encrypted = ["--client-cert", certificate, "--client-key", encryptedKey]
        #expect(await get(server.url("/hello"), encrypted + ["--passphrase-file", passphraseFile]).status == 0)
        let unopened = await get(server.url("/hello"), encrypted)
        #expect(unopened.status == 2)
        #expect(unopened.output.stderr.contains("has an encrypted private key: give its passphrase"))
        setenv("TSEC_TEST_P12_PASSPHRASE", "wrong", 1)
        let wrong = await get(server.url("/hello"), ["--client-identity", p12, "--passphrase-env", "TSEC_TEST_P12_PASSPHRASE"])
        #expect(wrong.status == 2)
        #expect(wrong.output.stderr.contains("passphrase is wrong"))
        #expect(!wrong.output.stderr.contains("alice-secret"))
        #expect(await get(server.url("/hello")).status == 3, "without an identity the server refuses the handshake")
        // Without a passphrase option the empty one is tried, and a file it does not open is
        // refused asking for one.
        let unasked = await get(server.url("/hello"), ["--client-identity", p12])
        #expect(unasked.status == 2)
        #expect(unasked.output.stderr.contains("\(p12) is a PKCS#12 file protected by a passphrase: give it with --passphrase-env VAR or --passphrase-file FILE"))
        let open = files.path("alice-open.p12")
        _ = try shell("openssl pkcs12 -export -in '\(certificate)' -inkey '\(key)' -out '\(open)' -passout pass:")
        #expect(await get(server.url("/hello"), ["--client-identity", open]).status == 0)
        await server.stop()
    }

    @Test("curl's identity options: -E CERT[:PASSWORD] (PKCS#12 by name or --cert-type P12, PEM with --key or the key in the same file, '\\:' in a name), --pass; a wrong password exits 2 without showing it; conflicting options exit 2")
    func curlIdentityOptions() async throws {
        let (clientCA, certificate, key, p12) = try clientFiles(named: "curl-alice")
        let combined = try files.write("curl-alice.pem", try String(contentsOfFile: certificate, encoding: .utf8) + "\n" + String(contentsOfFile: key, encoding: .utf8))
        let colonNamed = files.path("curl:alice.p12")
        let unnamed = files.path("curl-alice.bundle")
        _ = try shell("cp '\(p12)' '\(colonNamed)' && cp '\(p12)' '\(unnamed)'")
        let encryptedKey = files.path("curl-alice-encrypted.key")
        _ = try shell("openssl pkcs8 -topk8 -in '\(key)' -out '\(encryptedKey)' -passout pass:alice-secret")
        let server = try await HTTPTestServer(chain: lab.loopbackChain(), clientVerifier: PeerTrustVerifier.clients(of: clientCA, at: lab.pki.now))
        defer { Task { await server.stop() } }
        let accepted: [[String]] = [
            ["-E", p12 + ":alice-secret"],
            ["--cert", p12, "--pass", "alice-secret"],
            ["-E", unnamed + ":alice-secret", "--cert-type", "P12"],
            ["-E", colonNamed.replacingOccurrences(of: ":", with: "\\:") + ":alice-secret"],
            ["-E", certificate, "--key", key],
            ["-E", combined, "--cert-type", "pem"],
            ["-E", certificate, "--key", encryptedKey, "--key-type", "PEM", "--pass", "alice-secret"],
            ["-E", certificate + ":alice-secret", "--key", encryptedKey],
        ]
        for arguments in accepted {
            let outcome = await get(server.url("/hello"), arguments)
            #expect(outcome.status == 0, "\(arguments): \(outcome.output.stderr)")
            #expect(outcome.output.stdout == "hello", "\(arguments)")
        }
        let wrong = await get(server.url("/hello"), ["-E", p12 + ":not-it-7f3"])
        #expect(wrong.status == 2)
        #expect(wrong.output.stderr.contains("passphrase is wrong"), "\(wrong.output.stderr)")
        #expect(!wrong.output.stderr.contains("not-it-7f3"))
        let refused: [[String]] = [
            ["--key", key],
            ["--pass", "alice-secret"],
            ["-E", p12, "--cert-type", "DER"],
            ["-E", certificate, "--key", key, "--key-type", "DER"],
            ["-E", p12 + ":not-it-7f3", "--pass", "alice-secret"],
            ["-E", p12 + ":not-it-7f3", "--key", key],
            ["-E", certificate, "--key", key, "--client-identity", p12, "--passphrase-env", "HOME"],
        ]
        for arguments in refused {
            let outcome = await get(server.url("/hello"), arguments)
            #expect(outcome.status == 2, "\(arguments)")
            #expect(!outcome.output.stderr.contains("not-it-7f3"), "\(arguments): \(outcome.output.stderr)")
        }
    }

    @Test("--tlsv1.3 against a server of TLS 1.2 only exits 3 saying what is allowed; --tls-max 1.2 connects over TLS 1.2; other versions and contradictions are refused")
    func tlsVersions() async throws {
        let chain = try lab.loopbackChain()
        let tls12Only = try OpenSSLServer(chain: chain, options: ["-tls1_2"])
        defer { tls12Only.stop() }
        let pinned = ["--mode", "certificate", "--pin", files.path("root.pem")]
        let refused = await get(tls12Only.url, pinned + ["--tlsv1.3"])
        #expect(refused.status == 3)
        #expect(refused.output.stderr.contains("no TLS version in common") && refused.output.stderr.contains("the session allows TLS 1.3 and later"), "\(refused.output.stderr)")
        #expect(await get(tls12Only.url, pinned + ["--tlsv1.2"]).output.stdout.contains("Protocol  : TLSv1.2"))
        let newest = try OpenSSLServer(chain: chain)
        defer { newest.stop() }
        #expect(await get(newest.url, pinned + ["--tls-max", "1.2"]).output.stdout.contains("Protocol  : TLSv1.2"))
        #expect(await get(newest.url, pinned + ["--tls-max", "default"]).output.stdout.contains("Protocol  : TLSv1.3"))
        let report = await get(newest.url, pinned + ["--tls-max", "1.2", "--json"])
        #expect(report.output.stdout.contains(#""tlsVersion" : "TLSv1.2""#), "\(report.output.stdout.prefix(300))")
        let verbose = await get(newest.url, pinned + ["-v"])
        #expect(verbose.output.stderr.contains("tls=TLS 1.3"), "\(verbose.output.stderr)")
        for bad in [["--tls-max", "1.1"], ["--tlsv1.3", "--tls-max", "1.2"], ["--tlsv1.2", "--tlsv1.3"]] {
            let outcome = await get(newest.url, pinned + bad)
            #expect(outcome.status == 2, "\(bad)")
        }
    }

    @Test("openssl s_server as an independent peer: plain TLS, and -Verify mutual TLS")
    func openSSLPeer() async throws {
        let chain = try lab.loopbackChain()
        let leafFile = try files.write("s_server.pem", chain[0].pemString)
        let chainFile = try files.write("s_server-chain.pem", chain.dropFirst().map { $0 }.pemBundle)
        let keyFile = try files.write("s_server.key", try chain[0].privateKeyPEM)
        let plain = try OpenSSLServer(certificateFile: leafFile, keyFile: keyFile, chainFile: chainFile)
        let response = await get(URL(string: "https://127.0.0.1:\(plain.port)/")!, ["--mode", "certificate", "--pin", files.path("root.pem"), "-i"])
        plain.stop()
        #expect(response.status == 0, "\(response.output.stderr)")
        #expect(response.output.stdout.hasPrefix("HTTP/1.0 200"))
        #expect(response.output.stdout.contains("s_server"))

        // openssl checks the client's certificate against the real clock, so the client CA and
        // certificate come from a PKI on today's clock (the lab's are dated 2030).
        let today = PKI(now: Date())
        let liveCA = try today.issueRoot(.certificateAuthority("OpenSSL Client CA"))
        let carol = try today.issue(.client("carol"), by: liveCA)
        let clientCAFile = try files.write("client-ca.pem", liveCA.pemString)
        let carolCert = try files.write("carol.crt", carol.pemString)
        let carolKey = try files.write("carol.key", try carol.privateKeyPEM)
        let mutual = try OpenSSLServer(certificateFile: leafFile, keyFile: keyFile, chainFile: chainFile, verifyClientsWith: clientCAFile)
        let withIdentity = await get(URL(string: "https://127.0.0.1:\(mutual.port)/")!, ["--client-cert", carolCert, "--client-key", carolKey])
        let withoutIdentity = await get(URL(string: "https://127.0.0.1:\(mutual.port)/")!)
        mutual.stop()
        #expect(withIdentity.status == 0, "\(withIdentity.output.stderr)")
        #expect(withIdentity.output.stdout.contains("s_server"))
        #expect(withoutIdentity.status == 3)
    }

    @Test("--fetch-intermediates: openssl s_server sending only its leaf is refused (exit 1), then trusted once the issuer named by the leaf's caIssuers URL is fetched")
    func fetchIntermediates() async throws {
        let publisher = try await HTTPTestServer(chain: nil)
        defer { Task { await publisher.stop() } }
        publisher.files[bytes: "issuing.cer"] = lab.intermediate.derBytes
        let profile = CertificateProfile.server("loopback", ipAddresses: ["127.0.0.1"])
            .pointingTo(caIssuers: [publisher.url("/files/issuing.cer").absoluteString])
        let leaf = try lab.pki.issue(profile, by: lab.intermediate)
        let server = try OpenSSLServer(
            certificateFile: try files.write("lonely.pem", leaf.pemString),
            keyFile: try files.write("lonely.key", try leaf.privateKeyPEM)
        )
        defer { server.stop() }
        let url = URL(string: "https://127.0.0.1:\(server.port)/")!
        let refused = await get(url)
        #expect(refused.status == 1, "\(refused.output.stderr)")
        #expect(refused.output.stderr.contains("neither presented nor a trusted anchor"), "\(refused.output.stderr)")
        #expect(refused.output.stderr.contains("--fetch-intermediates fetches a missing intermediate from there"), "a hint naming the flag")
        let completed = await get(url, ["--fetch-intermediates", "--json"])
        #expect(completed.status == 0, "\(completed.output.stderr)")
        #expect(completed.output.stdout.contains("issuer certificate from \(publisher.url("/files/issuing.cer").absoluteString)"))
    }

    @Test("--proxy goes through an HTTP proxy (tinyproxy, with credentials), an HTTPS one (with --proxy-pin-sha256) or a SOCKS5 one with a password; a proxy that refuses or a mispinned one exits 3, a bad proxy URL exits 2")
    func proxy() async throws {
        let proxy = try TinyProxy(user: "bob", password: "s3cret")
        defer { proxy.stop() }
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let through = await get(server.url("/hello"), ["--proxy", proxy.url(user: "bob", password: "s3cret")])
        #expect(through.status == 0, "\(through.output.stderr)")
        #expect(through.output.stdout == "hello")
        let refused = await get(server.url("/hello"), ["-x", proxy.url()])
        #expect(refused.status == 3)
        #expect(refused.output.stderr.contains("proxy failure: the proxy 127.0.0.1:\(proxy.port) refused the tunnel"))
        let bypassed = await get(server.url("/hello"), ["-x", proxy.url(), "--noproxy", "127.0.0.1"])
        #expect(bypassed.output.stdout == "hello")
        let bad = await get(server.url("/hello"), ["--proxy", "socks4://bob:s3cret@127.0.0.1:\(proxy.port)"])
        #expect(bad.status == 2)
        #expect(!bad.output.stderr.contains("s3cret"))
        // Proxy pins without an https:// proxy would be ignored: refused.
        let unpinnable = await get(server.url("/hello"), ["-x", proxy.url(user: "bob", password: "s3cret"), "--proxy-pin-sha256", lab.root.der.spkiPin.description])
        #expect(unpinnable.status == 2)
        #expect(unpinnable.output.stderr.contains("--proxy-pin-sha256 pins an https:// proxy"))

        // An HTTPS proxy (stunnel4 in front of tinyproxy), judged against the system roots and,
        // with --proxy-pin-sha256, its pins too.
        let secure = try StunnelProxy(chain: lab.loopbackChain(), user: "bob", password: "s3cret")
        defer { secure.stop() }
        let overTLS = await get(server.url("/hello"), ["-x", secure.url(user: "bob", password: "s3cret"), "--proxy-pin-sha256", lab.root.der.spkiPin.description])
        #expect(overTLS.status == 0, "\(overTLS.output.stderr)")
        #expect(overTLS.output.stdout == "hello")
        let mispinned = await get(server.url("/hello"), ["-x", secure.url(user: "bob", password: "s3cret"), "--proxy-pin-sha256", lab.proxyRoot.der.spkiPin.description])
        #expect(mispinned.status == 3)
        #expect(mispinned.output.stderr.contains("the certificate of the proxy https://bob@127.0.0.1:\(secure.port) was rejected"), "\(mispinned.output.stderr)")
        #expect(!mispinned.output.stderr.contains("s3cret"))

        // A SOCKS5 proxy with a user and password (microsocks -u -P).
        let socks = try MicroSocks(user: "bob", password: "s3cret")
        defer { socks.stop() }
        let throughSocks = await get(server.url("/hello"), ["-x", "socks5h://bob:s3cret@127.0.0.1:\(socks.port)"])
        #expect(throughSocks.status == 0, "\(throughSocks.output.stderr)")
        #expect(throughSocks.output.stdout == "hello")
        let wrongSocks = await get(server.url("/hello"), ["-x", "socks5h://bob:guess@127.0.0.1:\(socks.port)"])
        #expect(wrongSocks.status == 3)
        #expect(wrongSocks.output.stderr.contains("it refused the user name or password of bob"), "\(wrongSocks.output.stderr)")
        #expect(!wrongSocks.output.stderr.contains("guess"))
        await server.stop()
    }

    @Test("nghttpd as an independent HTTP/2 peer: GET and POST over h2 with a pinned root; --http1.1 is refused by an h2-only server")
    func nghttpdPeer() async throws {
        let chain = try lab.loopbackChain()
        let chainFile = try files.write("nghttpd-chain.pem", chain.pemBundle)
        let keyFile = try files.write("nghttpd.key", try chain[0].privateKeyPEM)
        let documents = try TemporaryFolder()
        _ = try documents.write("hello.txt", "served over h2\n")
        let server = try NGHTTPDServer(certificateFile: chainFile, keyFile: keyFile, documentRoot: documents.path)
        defer { server.stop() }
        let url = URL(string: "https://127.0.0.1:\(server.port)/hello.txt")!
        let pinned = ["--mode", "public-key", "--pin", files.path("root.pem")]
        let response = await get(url, pinned + ["-i"])
        #expect(response.status == 0, "\(response.output.stderr)")
        #expect(response.output.stdout.hasPrefix("HTTP/2 200\n"), "HTTP/2 has no reason phrase: none is made up")
        #expect(response.output.stdout.hasSuffix("\n\nserved over h2\n"))
        let report = await get(url, pinned + ["--json"])
        #expect(report.output.stdout.contains(#""httpVersion" : "HTTP/2""#))
        let echoed = await get(URL(string: "https://127.0.0.1:\(server.port)/echo")!, pinned + ["-d", "uploaded over h2"])
        #expect(echoed.output.stdout == "uploaded over h2")
        let http1 = await get(url, pinned + ["--http1.1"])
        #expect(http1.status == 3, "nghttpd speaks HTTP/2 only: \(http1.output.stdout)")
    }
}
