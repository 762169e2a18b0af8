import Foundation
import TernProtocol
import Testing

@Suite("RequestKey makes time-ordered UUIDs (version 7)")
struct RequestKeyTests {
    /// The key's first 48 bits, as milliseconds since 1970.
    static func milliseconds(_ key: String) -> UInt64? {
        let hex = key.replacingOccurrences(of: "-", with: "")
        return UInt64(hex.prefix(12), radix: 16)
    }

    @Test func aKeyIsAVersion7UUIDThatStartsWithItsMillisecond() throws {
        let date = Date(timeIntervalSince1970: 1_764_806_400.123_9)
        let key = RequestKey.make(at: date)
        let uuid = try #require(UUID(uuidString: key))
        #expect(key == uuid.uuidString)
        #expect(Self.milliseconds(key) == 1_764_806_400_123)
        #expect(uuid.uuid.6 >> 4 == 7)
        #expect(uuid.uuid.8 >> 6 == 0b10)
    }

    @Test func keysSortAsTheirTimesAndDifferWithinOneMillisecond() {
        let start = Date(timeIntervalSince1970: 1_764_806_400)
        let times = (0..<200).map { start.addingTimeInterval(Double($0) * 0.000_7) }
        let keys = times.map { RequestKey.make(at: $0) }
        for (earlier, later) in zip(keys, keys.dropFirst()) {
            #expect(Self.milliseconds(earlier)! <= Self.milliseconds(later)!)
            if Self.milliseconds(earlier)! < Self.milliseconds(later)! { #expect(earlier < later) }
        }
        let sameMillisecond = (0..<1000).map { _ in RequestKey.make(at: start) }
        #expect(Set(sameMillisecond).count == 1000)
        // The 74 random bits: not all of them fixed.
        let randomParts = Set(sameMillisecond.map { $0.suffix(17) })
        #expect(randomParts.count == 1000)
    }

    @Test func timesOutsideTheFieldAreHeldAtItsEnds() {
        #expect(RequestKey.make(at: Date(timeIntervalSince1970: -5)).hasPrefix("00000000-0000-7"))
        #expect(RequestKey.make(at: .distantFuture).hasPrefix(String(format: "%08X", 64_092_211_200_000 >> 16)))
        #expect(RequestKey.make(at: Date(timeIntervalSince1970: 1e12)).hasPrefix("FFFFFFFF-FFFF-7"))
    }

    @Test func aNewKeyIsNow() {
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let key = RequestKey.make()
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect((before...after).contains(Self.milliseconds(key)!))
    }
}
