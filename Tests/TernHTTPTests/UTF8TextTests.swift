import Testing

@testable import TernHTTP

/// Bytes taken as text only when they are well-formed UTF-8, the ASCII fast path included.
@Suite struct UTF8TextTests {
    @Test(
        arguments: [
            ([], ""), (Array("/v1/push/subscribe".utf8), "/v1/push/subscribe"), (Array("Zoë 🐦".utf8), "Zoë 🐦"),
            ([0x7F], "\u{7F}"),
        ] as [([UInt8], String)])
    func wellFormedBytesAreTheirText(bytes: [UInt8], text: String) {
        #expect(UTF8Text.string(bytes) == text)
    }

    @Test(
        arguments: [
            [0xFF], [0x61, 0x80], [0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0x61, 0xE2, 0x82],
        ] as [[UInt8]])
    func malformedBytesAreNoText(bytes: [UInt8]) {
        // A lone continuation byte, a truncated sequence, an overlong "/", a surrogate, past U+10FFFF.
        #expect(UTF8Text.string(bytes) == nil)
    }
}
