import CPostgres
import Foundation
import TernSQLite

/// How statements and their parameters are written for libpq: `?` placeholders numbered, values
/// in one buffer, libpq's messages trimmed.
extension PostgresConnection {
    /// `?` placeholders become `$1…$n`; a `?` inside a quoted literal stays.
    static func numbered(_ sql: String) -> String {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var quoted = false
        var index = 0
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?", !quoted {
                index += 1
                output += "$\(index)"
            } else {
                output.append(character)
            }
        }
        return output
    }

    static func trimmed(_ message: String) -> String {
        message.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: "; ")
    }

    /// Calls `body` with `parameters` as libpq takes them: count, values (text, NUL-terminated, or
    /// bytes), lengths and formats (0 text, 1 binary), valid only during the call. The values are
    /// written one after another into one buffer, integers as their digits straight to bytes: a
    /// delivery batch's statement binds 448 of them, and a buffer and a copy each (and a `String`
    /// for each integer) were 7 % of the server's CPU in a send on PostgreSQL.
    static func withParameters<R>(
        _ parameters: [any SQLiteBindable],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, [Int32], [Int32]) -> R
    ) -> R {
        var bytes: [UInt8] = []
        var starts: [Int] = []  // where each value starts in `bytes`; -1 for NULL
        var lengths: [Int32] = []
        var formats: [Int32] = []
        bytes.reserveCapacity(parameters.count * 12)
        starts.reserveCapacity(parameters.count)
        lengths.reserveCapacity(parameters.count)
        formats.reserveCapacity(parameters.count)
        for parameter in parameters {
            let start = bytes.count
            var format: Int32 = 0
            switch parameter.sqliteValue {
            case .null:
                starts.append(-1)
                lengths.append(0)
                formats.append(0)
                continue
            case .integer(let value): appendDigits(value, to: &bytes)
            case .real(let value): bytes.append(contentsOf: "\(value)".utf8)
            case .text(let value): bytes.append(contentsOf: value.utf8)
            case .blob(let value):
                bytes.append(contentsOf: value)
                format = 1
            }
            starts.append(start)
            lengths.append(Int32(bytes.count - start))
            formats.append(format)
            if format == 0 { bytes.append(0) }  // text values end with a NUL
        }
        if bytes.isEmpty { bytes.append(0) }  // a base address even when every value is NULL or empty
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let values: [UnsafePointer<CChar>?] = starts.map {
                $0 < 0 ? nil : (base + $0).assumingMemoryBound(to: CChar.self)
            }
            return values.withUnsafeBufferPointer { body(Int32(parameters.count), $0.baseAddress, lengths, formats) }
        }
    }

    /// `value`'s decimal digits (and its sign), as PostgreSQL reads an integer in text form.
    static func appendDigits(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude  // UInt64: Int64.min has no positive Int64
        let first = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[first...].reverse()
    }
}
