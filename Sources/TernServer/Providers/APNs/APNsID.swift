/// `apns-id` values: random (version 4) UUIDs in lowercase, made from the system's generator
/// without Foundation's `UUID()`, which opens `/dev/urandom` on every call on Linux.
enum APNsID {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64
        var low = generator.next() as UInt64
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // variant 10
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        var position = 0
        for (word, count) in [(high, 16), (low, 16)] {
            for index in 0..<count {
                if position == 8 || position == 13 || position == 18 || position == 23 { position += 1 }
                out[position] = digits[Int((word >> UInt64(60 - index * 4)) & 0xF)]
                position += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
