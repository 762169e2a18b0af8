import Synchronization

/// `apns-id` values: random (version 4) UUIDs in lowercase. The bits come from SplitMix64 over a
/// process-wide counter seeded once from the system's generator: an id per push must cost no
/// system call (the system generator asks the kernel on every call on Linux), and these ids only
/// need to be unique, not secret.
enum APNsID {
    private static let state: Atomic<UInt64> = {
        var generator = SystemRandomNumberGenerator()
        return Atomic(generator.next())
    }()
    private static let digits = Array("0123456789abcdef".utf8)

    static func random() -> String {
        var high = next()
        var low = next()
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // variant 10
        return String(unsafeUninitializedCapacity: 36) { out in
            var position = 0
            for (word, count) in [(high, 16), (low, 16)] {
                for index in 0..<count {
                    if position == 8 || position == 13 || position == 18 || position == 23 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits[Int((word >> UInt64(60 - index * 4)) & 0xF)]
                    position += 1
                }
            }
            return 36
        }
    }

    /// SplitMix64 (Steele, Lea and Flood, 2014) over the shared counter.
    private static func next() -> UInt64 {
        var z = state.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
