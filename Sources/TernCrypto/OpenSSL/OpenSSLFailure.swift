import COpenSSL

/// The reason OpenSSL left on this thread's error queue, which it then clears.
enum OpenSSLFailure {
    static func drain() -> String {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.isEmpty ? "no detail from OpenSSL" : reasons.joined(separator: "; ")
    }
}
