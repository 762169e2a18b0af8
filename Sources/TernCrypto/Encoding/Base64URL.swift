import Foundation

/// Base64url without padding (RFC 4648 §5), as JWTs use it.
///
/// ```swift
/// Base64URL.encode(Data([0xfb, 0xff]))  // "-_8"
/// Base64URL.decode("-_8")               // Data([0xfb, 0xff])
/// ```
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        var text = data.base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// The bytes, or nil when `text` holds anything but the base64url alphabet (padding included)
    /// or has an impossible length.
    public static func decode(_ text: String) -> Data? {
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "-"): standard += "+"
            case UInt8(ascii: "_"): standard += "/"
            default: return nil
            }
        }
        switch standard.utf8.count % 4 {
        case 1: return nil
        case 2: standard += "=="
        case 3: standard += "="
        default: break
        }
        return Data(base64Encoded: standard)
    }
}
