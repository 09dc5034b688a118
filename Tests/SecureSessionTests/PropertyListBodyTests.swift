import Foundation
import PKIBuilder
import SecureSession
import TestServers
import Testing

@Suite("Property-list bodies (AFNetworking's property-list serializers)")
struct PropertyListBodyTests {
    let lab = try! TrustLab()

    struct Order: Codable, Sendable, Equatable {
        let id: Int
        let item: String
        let tags: [String]
    }

    let order = Order(id: 7, item: "tea", tags: ["green", "loose"])

    /// Found by `Fuzz/run.sh FuzzPropertyListBody`: bytes that are not UTF-8 in an integer made
    /// `PropertyListDecoder` trap when the integer was read as a number.
    static let integerNotUTF8 = Array("<!DOCTYPE\u{1}\0\0>\t<integer>".utf8) + [UInt8](repeating: 0xFF, count: 120) + Array("2</integer>\n".utf8)

    @Test("a request carries its value as an XML or binary property list with Content-Type application/x-plist")
    func requestBody() throws {
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let request = try SecureRequest.propertyList(.post, url: URL(string: "https://example.com/orders")!, body: order, format: format)
            #expect(request.header("Content-Type") == "application/x-plist")
            let body = try #require(request.body)
            var written = PropertyListSerialization.PropertyListFormat.openStep
            _ = try PropertyListSerialization.propertyList(from: body, options: [], format: &written)
            #expect(written == format)
            #expect(try PropertyListDecoder().decode(Order.self, from: body) == order)
        }
    }

    @Test("sent and answered as property lists: XML through an echo, binary from a file; another media type is refused by the validation")
    func roundTrip() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session()
        // The echo answers with the request's own body and Content-Type.
        #expect(try await session.propertyList(.post, server.url("/echo"), body: order, as: Order.self) == order)

        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        server.files[bytes: "order.plist"] = Array(try encoder.encode(order))
        var request = SecureRequest(url: server.url("/files/order.plist"))
        request.validation = .propertyList
        #expect(try await session.send(request).decodePropertyList(Order.self) == order)

        var text = SecureRequest(url: server.url("/hello"))
        text.validation = .propertyList
        await #expect {
            _ = try await session.send(text)
        } throws: { error in
            guard case .unacceptableContentType(let type, _)? = error.sessionFailureReason else { return false }
            return type == "text/plain"
        }
        await session.shutdown()
        await server.stop()
    }

    @Test("a hostile list fails with undecodableResponse saying why, never a crash: nested 20,000 deep, a binary list holding itself or a set, 2^40 values in 250 bytes, bytes that are not UTF-8, garbage, a value of the wrong type")
    func hostileLists() async throws {
        let server = try await HTTPTestServer(chain: lab.loopbackChain())
        let session = lab.session()
        let depth = 20_000
        server.files["deep.plist"] = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
            + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</plist>"
        // bplist00, one array whose only element is itself; offset table; trailer.
        server.files[bytes: "cycle.plist"] = Array("bplist00".utf8) + [0xA1, 0x00] + [0x08] + trailer(objects: 1, offsetTable: 10)
        // A set holding the string "a".
        server.files[bytes: "set.plist"] = Array("bplist00".utf8) + [0xC1, 0x01, 0x51, 0x61] + [0x08, 0x0A] + trailer(objects: 2, offsetTable: 12)
        // Forty arrays, each holding the next twice: 2^40 values in 250 bytes.
        var bomb = Array("bplist00".utf8)
        for index in 0..<40 { bomb += [0xA2, UInt8(index + 1), UInt8(index + 1)] }
        bomb += [0x51, 0x61] + (0...40).map { UInt8(8 + 3 * $0) }
        server.files[bytes: "bomb.plist"] = bomb + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 41] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, 130]
        server.files["garbage.plist"] = "<plist><dict><key>id</key>"
        server.files[bytes: "not-utf8.plist"] = Self.integerNotUTF8
        server.files["wrong.plist"] = #"<?xml version="1.0"?><plist version="1.0"><dict><key>id</key><integer>7</integer><key>item</key><integer>3</integer><key>tags</key><array/></dict></plist>"#
        let expectations: [(file: String, reason: String)] = [
            ("deep.plist", "an xml property list nested more than 512 levels deep"),
            ("cycle.plist", "binary property list"),
            ("set.plist", "containing a set"),
            ("bomb.plist", "stand for more than"),
            ("not-utf8.plist", "an xml property list that is not utf-8 text"),
            ("garbage.plist", "not a property list (encountered unexpected eof while looking for close tag for dict)"),
            ("wrong.plist", "item: expected a string"),
        ]
        for (file, reason) in expectations {
            let response = try await session.get(server.url("/files/\(file)"))
            #expect(throws: SecureSessionError.self, "\(file)") {
                do {
                    _ = try response.decodePropertyList(Order.self)
                } catch let error as SecureSessionError {
                    guard case .undecodableResponse(let detail) = error.reason else { throw error }
                    #expect(detail.hasPrefix("the body is not the property list of Order: "), "\(file): \(detail)")
                    #expect(detail.lowercased().contains(reason), "\(file): \(detail)")
                    throw error
                }
            }
        }
        await session.shutdown()
        await server.stop()
    }

    /// An XML list nested `depth` levels below `<plist>`, with `between` after each `<array>`.
    private func nested(_ depth: Int, between: String = "", prolog: String = #"<?xml version="1.0" encoding="UTF-8"?>"#) -> String {
        prolog + "<plist version=\"1.0\">" + String(repeating: "<array>" + between, count: depth) + String(repeating: "</array>", count: depth) + "</plist>"
    }

    private func refusal(_ text: some Sequence<UInt8>) -> String? {
        do {
            _ = try PropertyListBody.decode([AnyNesting].self, from: Data(text))
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Any nesting of arrays.
    private struct AnyNesting: Decodable {
        let children: [AnyNesting]
        init(from decoder: any Decoder) throws { children = (try? [AnyNesting](from: decoder)) ?? [] }
    }

    @Test("XML nesting is measured as Foundation's scanner reads the text: closes hidden in comments, CDATA sections, processing instructions or attributes do not count; UTF-16 text is measured after conversion; text that is not UTF-8 is refused")
    func xmlNesting() throws {
        let tooDeep = "nested more than 512 levels deep"
        // 511 arrays in the plist element: 512 levels, read; one more is refused.
        #expect(refusal(nested(511).utf8) == nil)
        #expect(refusal(nested(512).utf8)?.contains(tooDeep) == true)
        // Closing tags that Foundation skips must not lower the count (each would otherwise hide
        // one level of 20,000).
        let hidden = [
            "<!-- </array></array> -->",
            "<string><![CDATA[</array></array>]]></string>",
            "<?pi </array></array> ?>",
            "<array attribute=\"</array>\"/>",
        ]
        for between in hidden {
            let refused = refusal(nested(20_000, between: between).utf8)
            #expect(refused?.contains(tooDeep) == true, "\(between): \(refused ?? "read")")
        }
        // A prolog with a document type and comments, and UTF-16 text with its byte-order mark.
        let doctype = #"<?xml version="1.0"?><!-- made by hand --><!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#
        #expect(refusal(nested(20_000, prolog: doctype).utf8)?.contains(tooDeep) == true)
        #expect(refusal(nested(3, between: hidden[0], prolog: doctype).utf8) == nil)
        let utf16: [UInt8] = [0xFF, 0xFE] + nested(20_000, prolog: "").utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(refusal(utf16)?.contains(tooDeep) == true)
        let shallowUTF16: [UInt8] = [0xFE, 0xFF] + nested(2, prolog: "").utf16.flatMap { unit -> [UInt8] in [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        #expect(refusal(shallowUTF16) == nil)
        #expect(refusal([0xFF, 0xFE, 0x3C]) != nil, "an odd byte after a UTF-16 mark")
        // Many empty or sibling containers are not nesting.
        #expect(refusal(nested(1, between: String(repeating: "<array/><array></array>", count: 5_000)).utf8) == nil)
        #expect {
            _ = try PropertyListBody.decode(Double.self, from: Data(Self.integerNotUTF8))
        } throws: { error in
            "\(error)" == "cannot decode the response: the body is not the property list of Double: an XML property list that is not UTF-8 text"
        }
        // Foundation quotes the body in its error (an unknown tag): a control character in it is
        // written escaped, so that an error printed or logged cannot drive a terminal.
        #expect {
            _ = try PropertyListBody.decode(Double.self, from: Data("<plist><\u{1B}[2J\u{202E}evil></plist>".utf8))
        } throws: { error in
            let text = "\(error)"
            return !text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E } && text.contains("\\u{1B}[2J\\u{202E}evil")
        }
        // OpenStep lists are bounded by Foundation itself.
        #expect(refusal((String(repeating: "(", count: 20_000) + String(repeating: ")", count: 20_000)).utf8) != nil)
    }

    /// A binary plist trailer: one-byte offsets and references, the top object first.
    private func trailer(objects: UInt8, offsetTable: UInt8) -> [UInt8] {
        [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, objects] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, offsetTable]
    }
}
