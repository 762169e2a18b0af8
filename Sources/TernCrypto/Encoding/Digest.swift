import COpenSSL
import Foundation

/// SHA-256 and HMAC-SHA-256 over OpenSSL, random identifiers, and a short stable hash.
///
/// ```swift
/// let hash = Digest.sha256(Data("abc".utf8))  // 32 bytes
/// let id = Digest.randomHex(bytes: 16)         // 32 hex characters
/// ```
public enum Digest {
    public static func sha256(_ data: Data) -> Data { Data(sha256(parts: [data])) }

    /// The SHA-256 of `parts` one after the other, in hex, without joining them first.
    public static func sha256Hex(parts: [Data]) -> String { hex(sha256(parts: parts)) }

    private static func sha256(parts: [Data]) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("OpenSSL could not make a digest context") }
        defer { EVP_MD_CTX_free(context) }
        var ok = EVP_DigestInit_ex(context, tern_sha256_md(), nil) == 1
        for part in parts where ok {
            ok = part.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) } == 1
        }
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        ok = ok && EVP_DigestFinal_ex(context, &output, &length) == 1
        precondition(ok && length == 32, "OpenSSL's SHA-256 failed")
        return output
    }

    public static func hmacSHA256(key: Data, data: Data) -> Data {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // Empty inputs still need valid pointers: a one-byte buffer stands in, with length 0.
        let keyBytes = key.isEmpty ? [0] : [UInt8](key)
        let dataBytes = data.isEmpty ? [0] : [UInt8](data)
        let result = HMAC(
            tern_sha256_md(), keyBytes, Int32(key.count), dataBytes, data.count, &output, &length)
        precondition(result != nil && length == 32, "OpenSSL's HMAC-SHA-256 failed")
        return Data(output)
    }

    /// Compares in time that does not depend on where the bytes differ.
    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
        }
    }

    /// SHA-256 of `data`, as 64 lowercase hex characters.
    public static func sha256Hex(_ data: Data) -> String { hex(sha256(parts: [data])) }

    public static func sha256Hex(_ text: String) -> String { sha256Hex(Data(text.utf8)) }

    /// `count` random bytes from the system's secure generator, as hex.
    public static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) }
        }
        return hex(bytes.prefix(count))
    }

    /// A short stable hash (8 hex characters, FNV-1a) of `text`: an identifier, not a digest.
    public static func shortHash(_ text: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// `bytes` as lowercase hex, two digits a byte.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            digits.withUTF8Buffer { digits in
                for (index, byte) in bytes.enumerated() {
                    out[2 * index] = digits[Int(byte >> 4)]
                    out[2 * index + 1] = digits[Int(byte & 0x0F)]
                }
            }
            return bytes.count * 2
        }
    }
}
