import Foundation
import TernProtocol

/// Downloads a push's media: the port the extension's processor uses, so tests and the simulated
/// device can run it on Linux. ``URLSessionMediaDownloader`` is the implementation apps get.
///
/// An implementation answers once the response's headers are in, then streams the body in chunks
/// (so a 50 MB video never sits in the extension's ~24 MB of memory), refuses redirects the
/// ``MediaURLPolicy`` does not allow, and stops the transfer when the consumer stops reading.
public protocol MediaDownloading: Sendable {
    /// Starts a GET of `url`; throws ``MediaDownloadError`` for a non-2xx answer or a refused redirect.
    func download(_ url: URL, policy: MediaURLPolicy) async throws -> MediaDownload
}

/// A download under way: what the headers said, and the body still arriving.
public struct MediaDownload: Sendable {
    /// `Content-Length`, when the server sent one.
    public var expectedLength: Int64?
    /// The body in arrival order; ends when the body does, throws when the transfer fails.
    public var chunks: AsyncThrowingStream<Data, any Error>

    public init(expectedLength: Int64?, chunks: AsyncThrowingStream<Data, any Error>) {
        self.expectedLength = expectedLength
        self.chunks = chunks
    }
}

/// Why media could not be attached; each becomes an `errorMediaDownload` event with this reason.
public enum MediaDownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    case httpStatus(Int)
    case redirectRefused(String)
    case transport(String)
    case timedOut(Duration)
    case tooLarge(family: MediaKind.Family?, limit: Int)
    case unsupportedType
    case empty
    case file(String)

    public var description: String {
        switch self {
        case .httpStatus(let code): "the media server answered HTTP \(code)"
        case .redirectRefused(let url): "refused a redirect to \(url): media must be https"
        case .transport(let reason): "the download failed: \(reason)"
        case .timedOut(let limit): "the download took longer than \(limit.components.seconds) s"
        case .tooLarge(let family, let limit):
            "the \(family?.rawValue ?? "media") file is larger than the \(limit) bytes iOS accepts"
        case .unsupportedType:
            "the file is not JPEG, PNG, GIF, MP3, M4A, WAV, AIFF, MPEG, MP4 or AVI (checked from its first bytes)"
        case .empty: "the media server sent an empty body"
        case .file(let reason): "could not write the attachment: \(reason)"
        }
    }
}
