import COpenSSL
import Foundation

/// Runs `body` with an OpenSSL memory BIO: reading `input`, or collecting what `body` writes.
enum MemoryBIO {
    static func reading<T>(_ input: Data, _ body: (OpaquePointer) -> T) -> T? {
        input.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// What `body` wrote, as text; nil when `body` returns false.
    static func writing(_ body: (OpaquePointer) -> Bool) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard body(bio) else { return nil }
        var output = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        let read = BIO_read(bio, &output, Int32(output.count))
        return read == output.count ? String(decoding: output, as: UTF8.self) : nil
    }
}
