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
}
