import Foundation

/// Downloads one media URL into an attachment file, within the limits.
///
/// The body goes straight to disk; its type is then read from its first bytes (not the URL), its
/// size held to that type's limit, and the file renamed with the type's extension.
struct MediaFetcher: Sendable {
    let downloader: any MediaDownloading
    let writer: any AttachmentWriting
    let policy: MediaURLPolicy
    let limits: MediaLimits

    /// The attachment, or why there is none; gives up after ``MediaLimits/timeout``.
    func fetch(_ url: URL) async -> Result<NotificationAttachment, MediaDownloadError> {
        let limit = limits.timeout
        let outcome = await Deadline.run(limit) { () -> Result<DownloadedFile, MediaDownloadError> in
            do {
                let file = try await downloader.download(url, policy: policy, maxBytes: limits.largestMaxBytes)
                if Task.isCancelled {
                    // Finished just as time ran out: nobody will take the file.
                    try? FileManager.default.removeItem(at: file.fileURL)
                    return .failure(.timedOut(limit))
                }
                return .success(file)
            } catch let error as MediaDownloadError {
                return .failure(error)
            } catch {
                return .failure(.transport(String(describing: error)))
            }
        }
        switch outcome {
        case .none:
            return .failure(.timedOut(limit))
        case .failure(let error):
            return .failure(error)
        case .success(let file):
            do {
                return .success(try attachment(from: file))
            } catch {
                try? FileManager.default.removeItem(at: file.fileURL)
                return .failure(error as? MediaDownloadError ?? .file(String(describing: error)))
            }
        }
    }

    private func attachment(from file: DownloadedFile) throws -> NotificationAttachment {
        guard file.byteCount > 0 else { throw MediaDownloadError.empty }
        let handle = try FileHandle(forReadingFrom: file.fileURL)
        let prefix = (try? handle.read(upToCount: MediaKind.signatureLength)) ?? Data()
        try? handle.close()
        guard let kind = MediaKind.sniff(prefix) else { throw MediaDownloadError.unsupportedType }
        let limit = limits.maxBytes(for: kind.family)
        guard file.byteCount <= limit else { throw MediaDownloadError.tooLarge(family: kind.family, limit: limit) }
        let stored: URL
        do {
            stored = try writer.store(file.fileURL, fileExtension: kind.fileExtension)
        } catch {
            throw MediaDownloadError.file(String(describing: error))
        }
        return NotificationAttachment(identifier: "tern-media", fileURL: stored, kind: kind, byteCount: file.byteCount)
    }
}
