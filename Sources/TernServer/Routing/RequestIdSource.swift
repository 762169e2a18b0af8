import Synchronization

/// The ids of requests that bring no `X-Request-Id`: 16 hexadecimal digits, never the same twice in
/// one process, and not guessable from the ones before (so no reader of one log learns how many
/// requests the server answered).
///
/// Each is the next count of an atomic counter, started from a random seed and scrambled by
/// SplitMix64's finalizer (a bijection of 64-bit words, so distinct counts give distinct ids). An id
/// is a correlation handle, not a secret: reading eight bytes from the system's random source per
/// request, as before, cost a system call and a tenth of the no-store route's handler.
final class RequestIdSource: Sendable {
    static let shared = RequestIdSource(seed: .random(in: .min ... .max))

    private let counter: Atomic<UInt64>

    init(seed: UInt64) {
        counter = Atomic(seed)
    }

    func next() -> String {
        let count = counter.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
        return Self.hex(Self.scrambled(count))
    }

    /// SplitMix64's output function (Steele, Lea and Flood, 2014).
    static func scrambled(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `value` as 16 lowercase hexadecimal digits.
    static func hex(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            let digits: StaticString = "0123456789abcdef"
            for index in 0..<16 {
                let nibble = Int(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0xF
                buffer[index] = digits.utf8Start[nibble]
            }
            return 16
        }
    }
}
