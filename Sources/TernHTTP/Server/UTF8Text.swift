/// Text from bytes that must be UTF-8, for the request path's parsers (the request target, the
/// JSON of a body).
///
/// `String(validating:as:)` is generic over the encoding and, unspecialized in the standard
/// library, looks up its type metadata on every call: 1.4 % of tern's samples in an `event/post`
/// run's profile, for strings that are nearly always ASCII (with this: none, and the metadata
/// lookups of the whole process 2.2 % → 1.3 %). An ASCII check first, then `String(decoding:as:)`
/// (which copies ASCII as it is); the full validation only for the rest.
public enum UTF8Text {
    /// The string `bytes` spell, or nil when they are not well-formed UTF-8.
    @inlinable
    public static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        if high < 0x80 { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// ``string(_:)-(UnsafeBufferPointer<UInt8>)`` of an array's bytes.
    @inlinable
    public static func string(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { string($0) }
    }
}
