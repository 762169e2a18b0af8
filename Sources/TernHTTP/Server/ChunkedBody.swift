import Foundation

/// Decodes a chunked request body (RFC 9112 §7.1) as its bytes arrive, strictly: a chunk size is
/// hexadecimal and fits the body limit, each size line and each chunk's data end in CRLF, chunk
/// extensions are skipped, and the trailer section is read, bounded, and dropped. Whatever breaks
/// these is refused (400, 413 or 431) and the connection closed, since the next message's start
/// can no longer be found.
struct ChunkedBody {
    enum Outcome: Equatable {
        case needMore
        case done
        case refuse(Int, String)
    }

    private enum Step {
        case size
        case data(Int)
        case dataEnd
        case trailers(Int)
        case done
    }

    /// A size line (with its extensions) longer than this is refused.
    static let maxSizeLine = 4096
    private static let cr: UInt8 = 0x0D
    private static let lf: UInt8 = 0x0A

    private var step = Step.size
    private var total = 0

    /// Decodes from the start of `bytes` into `body`; returns how many bytes it used.
    mutating func decode(
        _ bytes: UnsafeRawBufferPointer, into body: inout Data, maxBodyBytes: Int, maxTrailerBytes: Int
    ) -> (used: Int, outcome: Outcome) {
        var at = 0
        while true {
            switch step {
            case .done:
                return (at, .done)
            case .size:
                let newline = HeadCheck.index(of: Self.lf, in: bytes, from: at)
                guard let newline, newline - at <= Self.maxSizeLine else {
                    if newline != nil || bytes.count - at > Self.maxSizeLine {
                        return (
                            at,
                            .refuse(400, "a chunk size line is longer than \(Self.maxSizeLine) bytes (RFC 9112 §7.1)")
                        )
                    }
                    return (at, .needMore)
                }
                guard newline > at, bytes[newline - 1] == Self.cr else {
                    return (at, .refuse(400, "a chunk size line must end in CRLF (RFC 9112 §7.1)"))
                }
                let line = UnsafeRawBufferPointer(rebasing: bytes[at..<(newline - 1)])
                if line.contains(where: { $0 == Self.cr || $0 == 0 }) {
                    return (at, .refuse(400, "a chunk size line contains a control character (RFC 9112 §7.1)"))
                }
                var size = line.prefix { $0 != UInt8(ascii: ";") }
                while let last = size.last, last == 0x20 || last == 0x09 { size = size.dropLast() }
                let digits = String(decoding: size, as: UTF8.self)
                guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit) else {
                    return (
                        at,
                        .refuse(400, "chunk size \"\(digits.prefix(20))\" is not a hexadecimal number (RFC 9112 §7.1)")
                    )
                }
                guard digits.count <= 15, let value = Int(digits, radix: 16), value <= maxBodyBytes else {
                    return (at, .refuse(413, "a chunk of the request body is larger than \(maxBodyBytes) bytes"))
                }
                guard total + value <= maxBodyBytes else {
                    return (at, .refuse(413, "request body is larger than \(maxBodyBytes) bytes"))
                }
                total += value
                at = newline + 1
                step = value == 0 ? .trailers(0) : .data(value)
            case .data(let left):
                let take = min(left, bytes.count - at)
                guard take > 0 else { return (at, .needMore) }
                body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[at..<(at + take)]))
                at += take
                step = take == left ? .dataEnd : .data(left - take)
            case .dataEnd:
                let available = bytes.count - at
                if available >= 1, bytes[at] != Self.cr || (available >= 2 && bytes[at + 1] != Self.lf) {
                    return (at, .refuse(400, "a chunk's data must be followed by CRLF (RFC 9112 §7.1)"))
                }
                guard available >= 2 else { return (at, .needMore) }
                at += 2
                step = .size
            case .trailers(let seen):
                guard let newline = HeadCheck.index(of: Self.lf, in: bytes, from: at) else {
                    if seen + bytes.count - at > maxTrailerBytes {
                        return (at, .refuse(431, "the trailer section is larger than \(maxTrailerBytes) bytes"))
                    }
                    return (at, .needMore)
                }
                guard newline > at, bytes[newline - 1] == Self.cr else {
                    return (at, .refuse(400, "a trailer line must end in CRLF (RFC 9112 §7.1.2)"))
                }
                let length = newline - 1 - at
                if length > 0,
                    HeadCheck.index(of: UInt8(ascii: ":"), in: bytes, from: at).map({ $0 >= newline }) ?? true
                {
                    return (at, .refuse(400, "a trailer line has no colon (RFC 9112 §7.1.2)"))
                }
                at = newline + 1
                guard length > 0 else {
                    step = .done
                    continue
                }
                guard seen + length + 2 <= maxTrailerBytes else {
                    return (at, .refuse(431, "the trailer section is larger than \(maxTrailerBytes) bytes"))
                }
                step = .trailers(seen + length + 2)
            }
        }
    }
}
