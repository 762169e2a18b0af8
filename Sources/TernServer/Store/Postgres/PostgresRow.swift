import Foundation

/// One row of a result in text form, read by column index.
struct PostgresRow {
    let values: [String?]

    func int(_ index: Int) -> Int64? { values[index].flatMap { Int64($0) } }
    func string(_ index: Int) -> String? { values[index] }
    func bool(_ index: Int) -> Bool? { values[index].map { $0 == "t" || $0 == "true" || $0 == "1" } }

    /// A `bytea` column, which text results give in hex (`\x0a1b…`).
    func data(_ index: Int) -> Data? {
        guard let text = values[index] else { return nil }
        let hex = text.utf8.dropFirst(2)
        guard text.hasPrefix("\\x"), hex.count % 2 == 0 else { return Data(text.utf8) }
        var bytes = Data(capacity: hex.count / 2)
        var high: UInt8?
        for character in hex {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            default: nibble = character - UInt8(ascii: "A") + 10
            }
            if let value = high {
                bytes.append(value << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }
}
