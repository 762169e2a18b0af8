import COpenSSL
import Foundation

/// An OpenSSL `EVP_PKEY`, freed with this object. OpenSSL allows concurrent signing and verifying
/// with one key (each operation has its own context), so sharing it between tasks is safe.
final class EVPKey: @unchecked Sendable {
    enum Family: Equatable {
        case ecP256
        case ecOtherCurve(String)
        case rsa(bits: Int)
        case other(String)
    }

    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    var family: Family {
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else { return .ecOtherCurve("?") }
            let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return curve == "prime256v1" || curve == "P-256" ? .ecP256 : .ecOtherCurve(curve)
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS:
            return .rsa(bits: Int(EVP_PKEY_get_bits(pointer)))
        case let id:
            return .other(String(cString: OBJ_nid2sn(id)))
        }
    }

    /// Nil when the key suits `algorithm`; otherwise why not.
    func mismatch(for algorithm: JWTAlgorithm) -> String? {
        switch (algorithm, family) {
        case (.es256, .ecP256): return nil
        case (.rs256, .rsa(let bits)), (.ps256, .rsa(let bits)):
            return bits >= 2048 ? nil : "the RSA key has \(bits) bits; \(algorithm.rawValue) needs at least 2048"
        case (.hs256, _): return "HS256 takes an HMAC secret, not a \(familyName) key"
        case (.es256, _): return "ES256 needs an EC P-256 key, not \(familyName)"
        case (_, _): return "\(algorithm.rawValue) needs an RSA key, not \(familyName)"
        }
    }

    var familyName: String {
        switch family {
        case .ecP256: return "an EC P-256 key"
        case .ecOtherCurve(let curve): return "an EC key on curve \(curve)"
        case .rsa(let bits): return "an RSA-\(bits) key"
        case .other(let name): return "a \(name) key"
        }
    }
}
