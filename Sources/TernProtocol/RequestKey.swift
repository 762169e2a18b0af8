import Foundation

/// Idempotency keys (and request ids) as the SDK makes them: time-ordered UUIDs, version 7 of
/// RFC 9562 (the milliseconds since 1970 in the first 48 bits, then random bits).
///
/// The server keeps every answered key for a week in an index ordered by key. Random keys (version 4)
/// put each new one on a leaf of its own, anywhere in that index: every write then reads a leaf back
/// from disk and writes it out whole with its commit. Keys that start with their time fall, from every
/// device at once, on the index's last leaves, which stay in memory and are written once for many
/// keys. The 74 random bits keep keys made in the same millisecond apart.
public enum RequestKey {
    /// A new key, as its UUID string (uppercase, 36 characters).
    ///
    /// - Parameter date: The time it starts with; now by default.
    public static func make(at date: Date = Date()) -> String {
        timeOrderedUUID(at: date).uuidString
    }

    /// A version 7 UUID for `date` (times before 1970 are taken as 1970, times past the 48 bits'
    /// reach, in the year 10889, as its end).
    ///
    /// - Parameter date: The time it starts with.
    public static func timeOrderedUUID(at date: Date) -> UUID {
        let latest = Double((1 << 48) - 1)
        let milliseconds = UInt64(min(latest, max(0, (date.timeIntervalSince1970 * 1000).rounded(.down))))
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
        for index in 6..<8 { bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * UInt64(index))) }
        for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: low >> (8 * UInt64(index - 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // the RFC's variant: 10 in the top bits
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
