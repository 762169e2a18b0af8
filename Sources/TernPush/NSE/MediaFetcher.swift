import Foundation

/// Downloads one media URL into an attachment file, within the limits.
///
/// The body streams to disk; its type is read from the first bytes (not the URL), then its size is
/// held to that type's limit, both as declared by `Content-Length` and as counted.
struct MediaFetcher: Sendable {
    let downloader: any MediaDownloading
    let writer: any AttachmentWriting
    let policy: MediaURLPolicy
    let limits: MediaLimits

    /// The attachment, or why there is none; gives up after ``MediaLimits/timeout``.
    func fetch(_ url: URL) async -> Result<NotificationAttachment, MediaDownloadError> {
        let limit = limits.timeout
        let outcome = await Deadline.run(limit) { () -> Result<NotificationAttachment, MediaDownloadError> in
            do {
                return .success(try await download(url))
            } catch let error as MediaDownloadError {
                return .failure(error)
            } catch {
                return .failure(.transport(String(describing: error)))
            }
        }
        return outcome ?? .failure(.timedOut(limit))
    }

    private func download(_ url: URL) async throws -> NotificationAttachment {
        let download = try await downloader.download(url, policy: policy)
        if let declared = download.expectedLength, declared > Int64(limits.largestMaxBytes) {
            throw MediaDownloadError.tooLarge(family: nil, limit: limits.largestMaxBytes)
        }
        var sink = Sink(writer: writer, limits: limits, expectedLength: download.expectedLength)
        do {
            for try await chunk in download.chunks {
                try Task.checkCancellation()
                try sink.take(chunk)
            }
            try Task.checkCancellation()
            return try sink.finish()
        } catch {
            sink.discard()
            if error is CancellationError { throw MediaDownloadError.timedOut(limits.timeout) }
            throw error
        }
    }
}

/// Holds the first bytes until the type is known, then writes everything to a file of that type.
private struct Sink {
    let writer: any AttachmentWriting
    let limits: MediaLimits
    let expectedLength: Int64?
    private var prefix = Data()
    private var file: (any AttachmentFile)?
    private var kind: MediaKind?
    private var total = 0

    init(writer: any AttachmentWriting, limits: MediaLimits, expectedLength: Int64?) {
        self.writer = writer
        self.limits = limits
        self.expectedLength = expectedLength
    }

    mutating func take(_ chunk: Data) throws {
        total += chunk.count
        if let kind {
            try checkSize(kind)
            try write(chunk)
            return
        }
        prefix.append(chunk)
        if prefix.count >= MediaKind.signatureLength { try open() }
    }

    mutating func finish() throws -> NotificationAttachment {
        if kind == nil {
            guard !prefix.isEmpty else { throw MediaDownloadError.empty }
            try open()
        }
        guard let file, let kind else { throw MediaDownloadError.empty }
        let url: URL
        do { url = try file.finish() } catch { throw MediaDownloadError.file(String(describing: error)) }
        self.file = nil
        return NotificationAttachment(identifier: "tern-media", fileURL: url, kind: kind, byteCount: total)
    }

    func discard() {
        file?.discard()
    }

    private mutating func open() throws {
        guard let sniffed = MediaKind.sniff(prefix) else { throw MediaDownloadError.unsupportedType }
        kind = sniffed
        if let expectedLength, expectedLength > Int64(limits.maxBytes(for: sniffed.family)) {
            throw MediaDownloadError.tooLarge(family: sniffed.family, limit: limits.maxBytes(for: sniffed.family))
        }
        try checkSize(sniffed)
        do { file = try writer.makeFile(fileExtension: sniffed.fileExtension) } catch let error as MediaDownloadError {
            throw error
        } catch {
            throw MediaDownloadError.file(String(describing: error))
        }
        try write(prefix)
        prefix = Data()
    }

    private func checkSize(_ kind: MediaKind) throws {
        let limit = limits.maxBytes(for: kind.family)
        if total > limit { throw MediaDownloadError.tooLarge(family: kind.family, limit: limit) }
    }

    private func write(_ data: Data) throws {
        do { try file?.append(data) } catch { throw MediaDownloadError.file(String(describing: error)) }
    }
}
