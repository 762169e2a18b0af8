import COpenSSL
import Foundation

/// Digests and random identifiers.
public enum Digest {
    /// SHA-256 of `data`, as 64 lowercase hex characters.
    public static func sha256Hex(_ data: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        data.withUnsafeBytes { bytes in
            _ = SHA256(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &digest)
        }
        return hex(digest)
    }

    public static func sha256Hex(_ text: String) -> String { sha256Hex(Data(text.utf8)) }

    /// `count` random bytes from the system's secure generator, as hex.
    public static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) }
        }
        return hex(Array(bytes.prefix(count)))
    }

    /// A short stable hash (8 hex characters, FNV-1a) of `text`.
    public static func shortHash(_ text: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
