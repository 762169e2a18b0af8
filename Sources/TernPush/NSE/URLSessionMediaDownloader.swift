import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads media with `URLSession`, streaming the body and refusing redirects away from https.
///
/// One ephemeral session per download (no cookies, no cache on disk), invalidated when it ends.
///
/// ```swift
/// let downloader = URLSessionMediaDownloader()
/// let download = try await downloader.download(url, policy: MediaURLPolicy())
/// for try await chunk in download.chunks { file.append(chunk) }
/// ```
public struct URLSessionMediaDownloader: MediaDownloading {
    /// How long the connection may stay silent; the whole download's limit is the processor's.
    public var idleTimeout: TimeInterval

    public init(idleTimeout: TimeInterval = 15) {
        self.idleTimeout = idleTimeout
    }

    public func download(_ url: URL, policy: MediaURLPolicy) async throws -> MediaDownload {
        guard policy.allows(url) else { throw MediaDownloadError.redirectRefused(url.absoluteString) }
        let (events, continuation) = AsyncThrowingStream<StreamingDelegate.Event, any Error>.makeStream()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.urlCache = nil
        let delegate = StreamingDelegate(policy: policy, continuation: continuation)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        var request = URLRequest(url: url)
        request.timeoutInterval = idleTimeout
        let task = session.dataTask(with: request)
        continuation.onTermination = { termination in
            // Only when the reader went away: cancelling a task that is still settling a refused
            // redirect traps in swift-corelibs-foundation.
            if case .cancelled = termination { task.cancel() }
        }
        task.resume()
        // The session keeps its delegate until it is invalidated: let it go once the task ends.
        session.finishTasksAndInvalidate()

        var iterator = events.makeAsyncIterator()
        guard case .response(let expectedLength) = try await iterator.next() else {
            throw MediaDownloadError.transport("the connection closed before a response")
        }
        let (chunks, chunkContinuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let forwarder = Task {
            do {
                while let event = try await iterator.next() {
                    if case .data(let data) = event { chunkContinuation.yield(data) }
                }
                chunkContinuation.finish()
            } catch {
                chunkContinuation.finish(throwing: error)
            }
        }
        chunkContinuation.onTermination = { _ in
            forwarder.cancel()
            task.cancel()
        }
        return MediaDownload(expectedLength: expectedLength, chunks: chunks)
    }
}

/// Turns URLSession's delegate calls into one stream of events.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    enum Event: Sendable {
        case response(expectedLength: Int64?)
        case data(Data)
    }

    let policy: MediaURLPolicy
    let continuation: AsyncThrowingStream<Event, any Error>.Continuation

    init(policy: MediaURLPolicy, continuation: AsyncThrowingStream<Event, any Error>.Continuation) {
        self.policy = policy
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            continuation.finish(throwing: MediaDownloadError.httpStatus(status))
            completionHandler(.cancel)
            return
        }
        let length = response.expectedContentLength
        continuation.yield(.response(expectedLength: length >= 0 ? length : nil))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(.data(data))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let target = request.url, policy.allows(target) else {
            // Refusing the redirect ends the task with the 3xx itself; the stream already carries why.
            continuation.finish(throwing: MediaDownloadError.redirectRefused(request.url?.absoluteString ?? "?"))
            completionHandler(nil)
            return
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            continuation.finish(throwing: MediaDownloadError.transport(error.localizedDescription))
        } else {
            continuation.finish()
        }
    }
}
