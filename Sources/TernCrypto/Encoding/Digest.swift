import COpenSSL
import Foundation

/// SHA-256 and HMAC-SHA-256 over OpenSSL.
///
/// ```swift
/// let hash = Digest.sha256(Data("abc".utf8))  // 32 bytes
/// ```
public enum Digest {
    public static func sha256(_ data: Data) -> Data {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { bytes in
            EVP_Digest(bytes.baseAddress, bytes.count, &output, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == 32, "OpenSSL's SHA-256 failed")
        return Data(output)
    }

    public static func hmacSHA256(key: Data, data: Data) -> Data {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // Empty inputs still need valid pointers: a one-byte buffer stands in, with length 0.
        let keyBytes = key.isEmpty ? [0] : [UInt8](key)
        let dataBytes = data.isEmpty ? [0] : [UInt8](data)
        let result = HMAC(
            EVP_sha256(), keyBytes, Int32(key.count), dataBytes, data.count, &output, &length)
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
}
