import Foundation
import Testing

@testable import TernPush

@Suite struct NSEMediaKindTests {
    static func bytes(_ text: String, _ tail: [UInt8] = []) -> [UInt8] { Array(text.utf8) + tail }

    static let signatures: [([UInt8], MediaKind?)] = [
        ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], .jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D], .png),
        (bytes("GIF89a", [1, 0]), .gif),
        (bytes("GIF87a"), .gif),
        (bytes("RIFF") + [0, 0, 0, 0] + bytes("WAVE"), .wav),
        (bytes("RIFF") + [0, 0, 0, 0] + bytes("AVI "), .avi),
        (bytes("FORM") + [0, 0, 0, 0] + bytes("AIFF"), .aiff),
        (bytes("FORM") + [0, 0, 0, 0] + bytes("AIFC"), .aiff),
        ([0, 0, 0, 0x20] + bytes("ftypM4A "), .m4a),
        ([0, 0, 0, 0x20] + bytes("ftypisom"), .mp4),
        ([0, 0, 0, 0x20] + bytes("ftypmp42"), .mp4),
        ([0, 0, 0, 0x14] + bytes("ftypqt  "), nil),
        ([0x00, 0x00, 0x01, 0xBA, 0x44], .mpeg),
        ([0x00, 0x00, 0x01, 0xB3, 0x14], .mpeg),
        (bytes("ID3", [4, 0]), .mp3),
        ([0xFF, 0xFB, 0x90, 0x64], .mp3),
        ([0xFF, 0xF1, 0x50, 0x80], nil),  // AAC in ADTS: not an attachment type
        (bytes("<html>"), nil),
        (bytes("%PDF-1.7"), nil),
        (bytes("RIFF") + [0, 0, 0, 0] + bytes("WEBP"), nil),
        ([], nil),
    ]

    @Test(arguments: signatures)
    func theTypeIsReadFromTheFirstBytes(prefix: [UInt8], kind: MediaKind?) {
        #expect(MediaKind.sniff(Data(prefix)) == kind)
    }

    @Test func everyTypeHasAppleLimitsForItsFamily() {
        let limits = MediaLimits()
        #expect(limits.maxBytes(for: MediaKind.jpeg.family) == 10_000_000)
        #expect(limits.maxBytes(for: MediaKind.m4a.family) == 5_000_000)
        #expect(limits.maxBytes(for: MediaKind.mp4.family) == 50_000_000)
        #expect(limits.timeout == .seconds(15))
        for kind in MediaKind.allCases {
            #expect(!kind.fileExtension.isEmpty && kind.typeIdentifier.contains("."))
        }
    }
}
