import Foundation
import Testing

@testable import TernHTTP

/// Header names compared byte by byte: letters without their case, nothing else folded.
@Suite struct HeaderNameTests {
    @Test func lettersMatchWithoutTheirCaseAndNothingElseDoes() {
        #expect(HeaderName.same("Content-Type", "content-type"))
        #expect(HeaderName.same("X-REQUEST-ID", "x-request-id"))
        #expect(!HeaderName.same("Content-Type", "Content-Typf"))
        #expect(!HeaderName.same("Content-Type", "Content-Type "))
        // '[' and '{' differ by the same bit as 'A' and 'a' but are not letters.
        #expect(!HeaderName.same("X[", "X{"))
        #expect(!HeaderName.same("X@", "X`"))
        #expect(HeaderName.same("", ""))
    }

    @Test func aResponseHeaderIsFoundWhateverItsCase() {
        let response = HTTPResponse(status: 200, headers: [("Content-Type", "a"), ("connection", "Close")])
        #expect(response.header("content-type") == "a")
        #expect(response.header("CONNECTION") == "Close")
        #expect(response.header("Content-Length") == nil)
        #expect(ResponseWire.asksToClose(response))
        #expect(!ResponseWire.asksToClose(HTTPResponse(status: 200, headers: [("Connectio", "close")])))
    }

    @Test func aListElementLosesSpacesAndTabsAtItsEndsAndNothingElse() {
        #expect(HeaderName.trimmed(" \t 12 \t") == "12")
        #expect(HeaderName.trimmed("keep-alive") == "keep-alive")
        #expect(HeaderName.trimmed("a b") == "a b")
        #expect(HeaderName.trimmed(" \t ") == "")
        #expect(HeaderName.trimmed("") == "")
        // Only SP and HTAB are optional whitespace (RFC 9110 §5.6.3): a line break or a Unicode
        // space stays, and a later check refuses it.
        #expect(HeaderName.trimmed("\n12") == "\n12")
        #expect(HeaderName.trimmed("12\u{A0}") == "12\u{A0}")
    }

    @Test func theEncoderWritesItsOwnFramingWhateverCaseAHandlerUsed() {
        let response = HTTPResponse(
            status: 200,
            headers: [
                ("CONTENT-LENGTH", "999"), ("transfer-encoding", "chunked"), ("Connection", "keep-alive"),
                ("DATE", "Tue, 01 Dec 2026 08:50:16 GMT"), ("X-Kept", "yes"),
            ], body: Data("ok".utf8))
        let text = String(
            decoding: ResponseWire.encode(response, closing: true, keepAlive: false, headOnly: false), as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.first == "HTTP/1.1 200 OK")
        #expect(lines.filter { $0.lowercased().hasPrefix("content-length:") } == ["Content-Length: 2"])
        #expect(!lines.contains { $0.lowercased().hasPrefix("transfer-encoding:") })
        #expect(lines.filter { $0.lowercased().hasPrefix("connection:") } == ["Connection: close"])
        // The handler's own Date stands, and the encoder adds none.
        #expect(lines.filter { $0.lowercased().hasPrefix("date:") } == ["DATE: Tue, 01 Dec 2026 08:50:16 GMT"])
        #expect(lines.contains("X-Kept: yes"))
        #expect(text.hasSuffix("\r\n\r\nok"))
    }
}
