/// How much media the extension downloads, and for how long.
///
/// The defaults are the attachment limits Apple documents (image 10 MB, audio 5 MB, video 50 MB)
/// and 15 seconds for the whole download, well inside the extension's ~30 seconds.
///
/// ```swift
/// var limits = MediaLimits()
/// limits.timeout = .seconds(5)
/// ```
public struct MediaLimits: Sendable, Equatable {
    /// The largest image accepted, in bytes; default 10,000,000 (Apple's limit).
    public var imageMaxBytes: Int
    /// The largest audio file accepted, in bytes; default 5,000,000 (Apple's limit).
    public var audioMaxBytes: Int
    /// The largest video accepted, in bytes; default 50,000,000 (Apple's limit).
    public var videoMaxBytes: Int
    /// The whole download, from the request to the last byte.
    public var timeout: Duration

    /// Limits; the defaults are Apple's attachment limits and 15 seconds.
    ///
    /// - Parameters:
    ///   - imageMaxBytes: The largest image; default 10,000,000.
    ///   - audioMaxBytes: The largest audio file; default 5,000,000.
    ///   - videoMaxBytes: The largest video; default 50,000,000.
    ///   - timeout: The whole download's limit; default 15 seconds.
    public init(
        imageMaxBytes: Int = 10_000_000, audioMaxBytes: Int = 5_000_000, videoMaxBytes: Int = 50_000_000,
        timeout: Duration = .seconds(15)
    ) {
        self.imageMaxBytes = imageMaxBytes
        self.audioMaxBytes = audioMaxBytes
        self.videoMaxBytes = videoMaxBytes
        self.timeout = timeout
    }

    /// The largest file of this family the extension accepts.
    public func maxBytes(for family: MediaKind.Family) -> Int {
        switch family {
        case .image: imageMaxBytes
        case .audio: audioMaxBytes
        case .video: videoMaxBytes
        }
    }

    /// The largest file of any family: what a response may declare before its type is known.
    public var largestMaxBytes: Int { max(imageMaxBytes, audioMaxBytes, videoMaxBytes) }
}
