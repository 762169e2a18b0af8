import Foundation
import TernProtocol

/// Downloads a push's media into a file: the port the extension's processor uses, so tests and the
/// simulated device can run it on Linux. ``URLSessionMediaDownloader`` is the implementation apps get.
///
/// The body goes to disk as it arrives, never into memory (a 50 MB video must not touch the
/// extension's ~24 MB), a body past `maxBytes` is abandoned, redirects the ``MediaURLPolicy`` does
/// not allow are refused, and the transfer stops when the calling task is cancelled.
public protocol MediaDownloading: Sendable {
    /// Downloads `url` into a new file the caller owns (it moves or deletes it); throws
    /// ``MediaDownloadError`` for a non-2xx answer, a refused redirect or a body past `maxBytes`.
    func download(_ url: URL, policy: MediaURLPolicy, maxBytes: Int) async throws -> DownloadedFile
}

/// A downloaded body, on disk.
public struct DownloadedFile: Sendable, Equatable {
    /// The file, owned by the caller (move or delete it).
    public var fileURL: URL
    /// Its size in bytes.
    public var byteCount: Int

    /// A downloaded file.
    ///
    /// - Parameters:
    ///   - fileURL: Where it is.
    ///   - byteCount: Its size in bytes.
    public init(fileURL: URL, byteCount: Int) {
        self.fileURL = fileURL
        self.byteCount = byteCount
    }
}

/// Why media could not be attached; each becomes an `errorMediaDownload` event with this reason.
public enum MediaDownloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The media server answered with this non-2xx status.
    case httpStatus(Int)
    /// A redirect to this URL was refused: media must stay on https.
    case redirectRefused(String)
    /// No answer: the connection failed, with the system's reason.
    case transport(String)
    /// The whole download took longer than this (``MediaLimits/timeout``).
    case timedOut(Duration)
    /// The file is larger than the limit for its family (nil while the family is unknown).
    case tooLarge(family: MediaKind.Family?, limit: Int)
    /// The file's first bytes match no type iOS attaches (JPEG, PNG, GIF, MP3, M4A, WAV, AIFF, MPEG, MP4, AVI).
    case unsupportedType
    /// The media server sent an empty body.
    case empty
    /// The downloaded file could not be kept (moved or measured), with the file system's reason.
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
        case .file(let reason): "could not keep the downloaded file: \(reason)"
        }
    }
}
