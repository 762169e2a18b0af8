import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP proxy a pool reaches its origin through, with `CONNECT host:port` and TLS end to end
/// inside the tunnel, as servers behind an egress proxy need. By default a pool takes it from the
/// environment, as libcurl does: `https_proxy` (or `HTTPS_PROXY`, then `all_proxy`), unless
/// `no_proxy` names the host.
///
/// ```swift
/// var configuration = HTTP2ConnectionPool.Configuration()
/// configuration.proxy = try HTTP2Proxy(url: URL(string: "http://user:secret@proxy.internal:3128")!)
/// ```
public struct HTTP2Proxy: Sendable, Equatable {
    public let host: String
    public let port: Int
    /// The `Proxy-Authorization` value, when the URL has a user (and password).
    let authorization: String?

    /// - Throws: `HTTP2ClientError.invalidRequest` unless `url` is `http://[user[:password]@]host[:port]`.
    public init(url: URL) throws(HTTP2ClientError) {
        guard url.scheme?.lowercased() == "http", let host = url.host, !host.isEmpty else {
            throw HTTP2ClientError(
                .invalidRequest,
                "proxy \(Self.redacted(url)): only an http://host:port proxy is supported (CONNECT, then TLS inside)")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = url.port ?? 80
        if let user = url.user(percentEncoded: false) {
            let credentials = "\(user):\(url.password(percentEncoded: false) ?? "")"
            authorization = "Basic " + Data(credentials.utf8).base64EncodedString()
        } else {
            authorization = nil
        }
    }

    /// The proxy the environment sets for `host`, if any: `https_proxy`, `HTTPS_PROXY`,
    /// `all_proxy`, `ALL_PROXY` (the first set), unless `no_proxy`/`NO_PROXY` lists the host, a
    /// domain it is in, or `*`. A value without a scheme is taken as `http://`.
    /// - Throws: `HTTP2ClientError.invalidRequest` when the variable is set to something unusable.
    public static func fromEnvironment(
        for host: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(HTTP2ClientError) -> HTTP2Proxy? {
        let names = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
        guard
            let (name, value) = names.lazy.compactMap({ name in environment[name].map { (name, $0) } })
                .first(where: { !$0.1.trimmingCharacters(in: .whitespaces).isEmpty })
        else { return nil }
        let exceptions = environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        if bypasses(host: host, noProxy: exceptions) { return nil }
        let text = value.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: text.contains("://") ? text : "http://" + text) else {
            throw HTTP2ClientError(.invalidRequest, "\(name) is not a URL")
        }
        do {
            return try HTTP2Proxy(url: url)
        } catch {
            throw HTTP2ClientError(.invalidRequest, "\(name): \(error.reason)")
        }
    }

    /// `no_proxy` semantics as curl has them: comma-separated hosts or domains (a leading dot
    /// optional, a port ignored), `*` for every host.
    static func bypasses(host: String, noProxy: String) -> Bool {
        let host = host.lowercased()
        for entry in noProxy.split(separator: ",") {
            var name = entry.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "*" { return true }
            if !name.hasPrefix("["), let colon = name.lastIndex(of: ":"), !name[..<colon].contains(":") {
                name = String(name[..<colon])
            }
            name = name.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if name.hasPrefix(".") { name.removeFirst() }
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// The URL without its password, for messages.
    private static func redacted(_ url: URL) -> String {
        guard url.password != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.password = "***"
        return components.string ?? "(proxy URL)"
    }

    /// `CONNECT host:port` on a connected socket to the proxy, before `deadline` (monotonic
    /// nanoseconds); returns once the proxy answered 2xx.
    func open(tunnelTo host: String, port targetPort: Int, on fd: Int32, deadline: UInt64) throws(HTTP2ClientError) {
        let authority = host.contains(":") ? "[\(host)]:\(targetPort)" : "\(host):\(targetPort)"
        var request = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let authorization { request += "Proxy-Authorization: \(authorization)\r\n" }
        request += "\r\n"
        let place = "the proxy \(self.host):\(self.port)"
        var bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + sent, $0.count - sent) }
            if count > 0 {
                sent += count
            } else if count < 0, errno != EAGAIN, errno != EINTR {
                throw HTTP2ClientError(.connect, "\(place): \(String(cString: strerror(errno)))")
            } else if !TLSStream.wait(fd, events: Int16(POLLOUT), deadline: deadline) {
                throw HTTP2ClientError(.connect, "\(place) did not take the CONNECT in time")
            }
        }
        // The answer's head, byte by byte: nothing after it may be consumed, it is the tunnel's.
        bytes.removeAll(keepingCapacity: true)
        while !bytes.ends(with: [13, 10, 13, 10]) {
            guard bytes.count < 16 << 10 else {
                throw HTTP2ClientError(.connect, "\(place) answered CONNECT with a head over 16 KB")
            }
            var byte: UInt8 = 0
            let count = read(fd, &byte, 1)
            if count == 1 {
                bytes.append(byte)
            } else if count == 0 {
                throw HTTP2ClientError(.connect, "\(place) closed the connection instead of answering CONNECT")
            } else if errno != EAGAIN, errno != EINTR {
                throw HTTP2ClientError(.connect, "\(place): \(String(cString: strerror(errno)))")
            } else if !TLSStream.wait(fd, events: Int16(POLLIN), deadline: deadline) {
                throw HTTP2ClientError(.connect, "\(place) did not answer CONNECT \(authority) in time")
            }
        }
        let statusLine = String(decoding: bytes.prefix { $0 != 13 }, as: UTF8.self)
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw HTTP2ClientError(.connect, "\(place) answered CONNECT with \"\(statusLine.prefix(80))\"")
        }
        guard (200..<300).contains(status) else {
            throw HTTP2ClientError(
                .connect, "\(place) refused CONNECT \(authority): \(statusLine.dropFirst(parts[0].count + 1))")
        }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
