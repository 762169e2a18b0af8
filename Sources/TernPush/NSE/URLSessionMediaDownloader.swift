import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads media with a `URLSession` download task: the body is written to disk by the session,
/// counted as it arrives, and abandoned past the byte limit; redirects away from https are refused.
///
/// One ephemeral session per download (no cookies, no cache), invalidated when it ends.
///
/// ```swift
/// let file = try await URLSessionMediaDownloader().download(url, policy: MediaURLPolicy(), maxBytes: 10_000_000)
/// ```
public struct URLSessionMediaDownloader: MediaDownloading {
    /// How long the connection may stay silent; the whole download's limit is the processor's.
    public var idleTimeout: TimeInterval
    /// Where finished downloads are moved (the session deletes its own file when its callback returns).
    public var directory: URL

    /// A downloader.
    ///
    /// - Parameters:
    ///   - idleTimeout: Seconds the connection may stay silent; default 15.
    ///   - directory: Where finished downloads are moved; default `tern-downloads` under the temporary directory.
    public init(
        idleTimeout: TimeInterval = 15,
        directory: URL = FileManager.default.temporaryDirectory.appendingPathComponent("tern-downloads")
    ) {
        self.idleTimeout = idleTimeout
        self.directory = directory
    }

    public func download(_ url: URL, policy: MediaURLPolicy, maxBytes: Int) async throws -> DownloadedFile {
        guard policy.allows(url) else { throw MediaDownloadError.redirectRefused(url.absoluteString) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (outcome, continuation) = AsyncThrowingStream<DownloadedFile, any Error>.makeStream()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.urlCache = nil
        let delegate = DownloadDelegate(
            policy: policy, maxBytes: maxBytes, directory: directory, continuation: continuation)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        var request = URLRequest(url: url)
        request.timeoutInterval = idleTimeout
        let task = session.downloadTask(with: request)
        continuation.onTermination = { termination in
            // Only when the caller went away: cancelling a task that is still settling a refused
            // redirect traps in swift-corelibs-foundation.
            if case .cancelled = termination { task.cancel() }
        }
        task.resume()
        // The session keeps its delegate until it is invalidated: let it go once the task ends.
        session.finishTasksAndInvalidate()
        for try await file in outcome { return file }
        throw CancellationError()
    }
}

/// Turns a download task's delegate calls into one outcome: the file, or why there is none.
final class DownloadDelegate: NSObject, URLSessionDownloadDelegate, Sendable {
    let policy: MediaURLPolicy
    let maxBytes: Int
    let directory: URL
    let continuation: AsyncThrowingStream<DownloadedFile, any Error>.Continuation

    init(
        policy: MediaURLPolicy, maxBytes: Int, directory: URL,
        continuation: AsyncThrowingStream<DownloadedFile, any Error>.Continuation
    ) {
        self.policy = policy
        self.maxBytes = maxBytes
        self.directory = directory
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        if totalBytesWritten > Int64(maxBytes) || totalBytesExpectedToWrite > Int64(maxBytes) {
            continuation.finish(throwing: MediaDownloadError.tooLarge(family: nil, limit: maxBytes))
            downloadTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let status = (downloadTask.response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            // An error page is not kept. Apple's session deletes `location` when this returns;
            // swift-corelibs-foundation leaves it in the temporary directory.
            try? FileManager.default.removeItem(at: location)
            continuation.finish(throwing: MediaDownloadError.httpStatus(status))
            return
        }
        // The session deletes `location` when this returns: move it first.
        let kept = directory.appendingPathComponent(UUID().uuidString)
        do {
            try FileManager.default.moveItem(at: location, to: kept)
            let size = (try FileManager.default.attributesOfItem(atPath: kept.path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= maxBytes else {
                try? FileManager.default.removeItem(at: kept)
                continuation.finish(throwing: MediaDownloadError.tooLarge(family: nil, limit: maxBytes))
                return
            }
            continuation.yield(DownloadedFile(fileURL: kept, byteCount: size))
            continuation.finish()
        } catch {
            continuation.finish(throwing: MediaDownloadError.file(error.localizedDescription))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let target = request.url, policy.allows(target) else {
            // Refusing the redirect ends the task with the 3xx itself; the outcome already says why.
            continuation.finish(throwing: MediaDownloadError.redirectRefused(request.url?.absoluteString ?? "?"))
            completionHandler(nil)
            return
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // After a finished download this does nothing: the outcome is already in.
        if let error {
            continuation.finish(throwing: MediaDownloadError.transport(error.localizedDescription))
        } else {
            continuation.finish(throwing: MediaDownloadError.transport("the download ended without a file"))
        }
    }
}
