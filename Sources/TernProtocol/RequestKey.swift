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
        // A random (version 4) UUID already has the RFC's variant bits and 122 random ones: the time
        // takes its first 48 bits and the version nibble says 7.
        var uuid = UUID().uuid
        withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
            bytes[6] = 0x70 | (bytes[6] & 0x0F)
        }
        return UUID(uuid: uuid)
    }
}
