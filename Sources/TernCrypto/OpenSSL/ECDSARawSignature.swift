import COpenSSL
import Foundation

/// ES256 signatures travel as raw R‖S (32 + 32 bytes, RFC 7518 §3.4); OpenSSL speaks DER.
enum ECDSARawSignature {
    static let componentBytes = 32

    /// DER `ECDSA-Sig-Value` → 64 raw bytes.
    static func raw(fromDER der: Data) -> Data? {
        der.withUnsafeBytes { bytes -> Data? in
            var pointer = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            guard let signature = d2i_ECDSA_SIG(nil, &pointer, bytes.count) else { return nil }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            var output = [UInt8](repeating: 0, count: componentBytes * 2)
            guard let r, let s,
                BN_bn2binpad(r, &output, Int32(componentBytes)) == componentBytes,
                output.withUnsafeMutableBufferPointer({
                    BN_bn2binpad(s, $0.baseAddress! + componentBytes, Int32(componentBytes))
                }) == componentBytes
            else { return nil }
            return Data(output)
        }
    }

    /// 64 raw bytes → DER `ECDSA-Sig-Value`; nil for any other length.
    static func der(fromRaw raw: Data) -> Data? {
        guard raw.count == componentBytes * 2 else { return nil }
        let bytes = [UInt8](raw)
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let r = BN_bin2bn(bytes, Int32(componentBytes), nil) else { return nil }
        guard let s = BN_bin2bn(Array(bytes[componentBytes...]), Int32(componentBytes), nil) else {
            BN_free(r)
            return nil
        }
        // set0 takes ownership of r and s.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &output)
        guard length > 0, let output else { return nil }
        defer { CRYPTO_free(output, #fileID, #line) }
        return Data(bytes: output, count: Int(length))
    }
}
