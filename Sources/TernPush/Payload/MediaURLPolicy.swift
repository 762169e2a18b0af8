import Foundation
import TernProtocol

/// Which media URLs the SDK downloads: https only.
///
/// Tests that serve media from a loopback server without TLS turn on ``allowsPlainHTTPOnLoopback``;
/// it stays off in apps (and App Transport Security would refuse plain http there anyway).
///
/// ```swift
/// let policy = MediaURLPolicy()                       // https only
/// let testing = MediaURLPolicy(allowsPlainHTTPOnLoopback: true)
/// ```
public struct MediaURLPolicy: Sendable, Equatable {
    /// Accept `http://127.0.0.1`, `http://localhost` and `http://[::1]`. Off by default.
    public var allowsPlainHTTPOnLoopback: Bool

    /// A policy.
    ///
    /// - Parameter allowsPlainHTTPOnLoopback: Accept plain http on loopback (tests only); default false.
    public init(allowsPlainHTTPOnLoopback: Bool = false) {
        self.allowsPlainHTTPOnLoopback = allowsPlainHTTPOnLoopback
    }

    /// The URL when the SDK may download from it, otherwise why not.
    public func check(_ text: String) -> Result<URL, PushIssue> {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            return .failure(issue("media_url is an empty string", url: text))
        }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty
        else {
            return .failure(issue("media_url is not an absolute URL with a host", url: text))
        }
        return check(url: url, scheme: scheme, host: host)
    }

    /// Checks a URL met later, e.g. the target of a redirect.
    public func allows(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return false }
        if case .success = check(url: url, scheme: scheme, host: host) { return true }
        return false
    }

    private func check(url: URL, scheme: String, host: String) -> Result<URL, PushIssue> {
        switch scheme {
        case "https":
            return .success(url)
        case "http" where allowsPlainHTTPOnLoopback && Self.isLoopback(host):
            return .success(url)
        default:
            return .failure(issue("media_url must be https, got \(scheme)://", url: url.absoluteString))
        }
    }

    private func issue(_ reason: String, url: String) -> PushIssue {
        PushIssue(
            .errorMediaKeyMissing, reason: reason,
            details: ["key": .string(TernPushPayload.Key.mediaURL.stringValue), "url": .string(url)])
    }

    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
