import Foundation

/// Other media for the benchmark.
enum BenchMedia {
    /// `bytes` bytes that start like an ISO MP4 file (`ftyp isom`), the rest noise.
    static func mp4(bytes: Int) -> Data {
        var data = Data([0, 0, 0, 0x20] + Array("ftypisom".utf8))
        data.reserveCapacity(bytes)
        var value: UInt8 = 3
        while data.count < bytes {
            value = value &* 29 &+ 11
            data.append(value)
        }
        return data
    }
}
