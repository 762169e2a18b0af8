import CCurl

/// Easy handles kept for reuse: `curl_easy_reset` keeps a handle's allocations (buffers, the
/// handle itself) and clears its options, which is cheaper than `curl_easy_init` and
/// `curl_easy_cleanup` per request. Used only on the client's loop thread.
final class CurlEasyHandles {
    /// Idle handles kept at most; more are freed.
    static let keep = 256
    private var idle: [UnsafeMutableRawPointer] = []
    private var closed = false

    /// A reset handle, or a new one; nil when libcurl cannot make one.
    func take() -> UnsafeMutableRawPointer? {
        idle.popLast() ?? curl_easy_init()
    }

    /// Takes back a handle no longer in the multi handle.
    func recycle(_ easy: UnsafeMutableRawPointer) {
        guard !closed, idle.count < Self.keep else {
            curl_easy_cleanup(easy)
            return
        }
        curl_easy_reset(easy)
        idle.append(easy)
    }

    /// Frees every idle handle; handles given back later are freed at once.
    func close() {
        closed = true
        for easy in idle { curl_easy_cleanup(easy) }
        idle.removeAll()
    }

    deinit {
        close()
    }
}
