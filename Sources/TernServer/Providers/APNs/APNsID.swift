/// `apns-id` values: one per delivery, the same on every attempt. A delivery that goes out again
/// (a retry, or a lease that expired under a node that died mid-batch) carries the id it had, so
/// APNs's answers, Apple's delivery log and the device name one notification, beside the payload's
/// `tern.message_id`.
///
/// The id is a version 8 (RFC 9562 "custom") UUID in lowercase: 64 bits of FNV-1a over the
/// message's public id, then the delivery's row id. Row ids are unique within one store (every node
/// on one PostgreSQL shares them); the message's id keeps two deployments' delivery 5 apart.
enum APNsID {
    private static let digits = Array("0123456789abcdef".utf8)

    static func delivery(messageId: String, deliveryId: Int64) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a 64, offset basis
        for byte in messageId.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        let high = (hash & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_8000  // version 8
        let low = (UInt64(bitPattern: deliveryId) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // variant 10
        // The digits are read once, not through the global's accessor for each of the 32 (which
        // was as much as the rest of making the id, in a send's profile).
        return digits.withUnsafeBufferPointer { digits in
            String(unsafeUninitializedCapacity: 36) { out in
                var position = 0
                for index in 0..<32 {
                    if position == 8 || position == 13 || position == 18 || position == 23 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let word = index < 16 ? high : low
                    out[position] = digits[Int((word >> UInt64(60 - (index % 16) * 4)) & 0xF)]
                    position += 1
                }
                return 36
            }
        }
    }
}
