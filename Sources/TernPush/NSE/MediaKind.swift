import Foundation

/// The attachment types iOS accepts, recognised from the file's first bytes.
///
/// The URL's extension is not trusted: a `.jpg` link that serves HTML is refused. Limits are Apple's
/// for notification attachments: images 10 MB, audio 5 MB, video 50 MB.
///
/// ```swift
/// MediaKind.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0]))   // .jpeg
/// ```
public enum MediaKind: String, Sendable, CaseIterable {
    /// Images: JPEG, PNG and GIF, up to ``MediaLimits/imageMaxBytes``.
    case jpeg, png, gif
    /// Audio: MP3, M4A (AAC in MPEG-4), WAV and AIFF, up to ``MediaLimits/audioMaxBytes``.
    case mp3, m4a, wav, aiff
    /// Video: MPEG, MPEG-4 and AVI, up to ``MediaLimits/videoMaxBytes``.
    case mpeg, mp4, avi

    /// Image, audio or video: what decides the size limit.
    public enum Family: String, Sendable, CaseIterable {
        /// Image, audio or video: each has its own size limit in ``MediaLimits``.
        case image, audio, video
    }

    /// How many leading bytes ``sniff(_:)`` needs to decide.
    public static let signatureLength = 12

    /// Whether this type is an image, audio or video.
    public var family: Family {
        switch self {
        case .jpeg, .png, .gif: .image
        case .mp3, .m4a, .wav, .aiff: .audio
        case .mpeg, .mp4, .avi: .video
        }
    }

    /// The file extension iOS infers the type from.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .mp3: "mp3"
        case .m4a: "m4a"
        case .wav: "wav"
        case .aiff: "aiff"
        case .mpeg: "mpg"
        case .mp4: "mp4"
        case .avi: "avi"
        }
    }

    /// The uniform type identifier, passed to the attachment as a type hint.
    public var typeIdentifier: String {
        switch self {
        case .jpeg: "public.jpeg"
        case .png: "public.png"
        case .gif: "com.compuserve.gif"
        case .mp3: "public.mp3"
        case .m4a: "public.mpeg-4-audio"
        case .wav: "com.microsoft.waveform-audio"
        case .aiff: "public.aiff-audio"
        case .mpeg: "public.mpeg"
        case .mp4: "public.mpeg-4"
        case .avi: "public.avi"
        }
    }

    /// The type whose signature `prefix` starts with, or nil for anything iOS would not attach.
    public static func sniff(_ prefix: Data) -> MediaKind? {
        let bytes = [UInt8](prefix.prefix(signatureLength))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) { return .gif }
        if starts(ascii("RIFF")) && starts(ascii("WAVE"), at: 8) { return .wav }
        if starts(ascii("RIFF")) && starts(ascii("AVI "), at: 8) { return .avi }
        if starts(ascii("FORM")) && (starts(ascii("AIFF"), at: 8) || starts(ascii("AIFC"), at: 8)) { return .aiff }
        if starts(ascii("ftyp"), at: 4) {
            // ISO media: the major brand tells audio-only files from video.
            guard bytes.count >= 12 else { return nil }
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            if ["M4A ", "M4B ", "M4P "].contains(brand) { return .m4a }
            if brand == "qt  " { return nil }  // QuickTime .mov is not an attachment type
            return .mp4
        }
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return .mpeg }
        if starts(ascii("ID3")) || isMPEGAudioFrame(bytes) { return .mp3 }
        return nil
    }

    /// An MPEG audio frame header: 11 sync bits, a defined version, and layer I–III (not AAC's 00).
    private static func isMPEGAudioFrame(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0 else { return false }
        let version = (bytes[1] >> 3) & 0x03
        let layer = (bytes[1] >> 1) & 0x03
        return version != 0x01 && layer != 0x00
    }
}
