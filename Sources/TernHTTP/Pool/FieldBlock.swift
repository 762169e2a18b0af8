import Foundation

/// Header fields as nghttp2 takes them: names and values back to back in one buffer, checked and
/// lowercased there, without a string made per field.
struct FieldBlock: Sendable {
    /// Where one field lies in `bytes`, and nghttp2's flags for it.
    struct Field: Sendable {
        let nameStart: Int
        let nameCount: Int
        let valueStart: Int
        let valueCount: Int
        let unindexed: Bool
    }

    /// Why ``FieldBlock/appendChecked(_:_:)`` refused a field.
    enum Refusal {
        case name
        case value

        /// The reason, for the field named `name`.
        func reason(_ name: String) -> String {
            switch self {
            case .name: "header name \"\(name)\" is not valid"
            case .value: "header \(name) has a line break or NUL in its value"
            }
        }
    }

    var bytes: [UInt8] = []
    var fields: [Field] = []

    /// Appends a field as given: for the fields the pool makes itself.
    mutating func append(_ name: String, _ value: String, unindexed: Bool = false) {
        var name = name
        var value = value
        let nameStart = bytes.count
        name.withUTF8 { bytes.append(contentsOf: $0) }
        let valueStart = bytes.count
        value.withUTF8 { bytes.append(contentsOf: $0) }
        fields.append(
            Field(
                nameStart: nameStart, nameCount: valueStart - nameStart, valueStart: valueStart,
                valueCount: bytes.count - valueStart, unindexed: unindexed))
    }

    /// Appends a caller's field: the name must be a token (sent in lower case) and the value
    /// must hold no line break or NUL. A connection-specific field is left out; a field whose
    /// value differs on every request is kept out of HPACK's table. Nil when appended or left out.
    mutating func appendChecked(_ name: String, _ value: String) -> Refusal? {
        append(name, value)
        let field = fields[fields.count - 1]
        guard lowercaseToken(field) else { return .name }
        guard isFieldValue(field, allowSpace: true) else { return .value }
        if Self.droppedNames.contains(where: { matches(field, $0) }) {
            fields.removeLast()
            bytes.removeLast(bytes.count - field.nameStart)
        } else if Self.unindexedNames.contains(where: { matches(field, $0) }) {
            fields[fields.count - 1] = Field(
                nameStart: field.nameStart, nameCount: field.nameCount, valueStart: field.valueStart,
                valueCount: field.valueCount, unindexed: true)
        }
        return nil
    }

    /// Appends the fields of a block checked before (``HTTP2ConnectionPool/SharedHeaders``).
    mutating func append(_ other: FieldBlock) {
        let shift = bytes.count
        bytes.append(contentsOf: other.bytes)
        for field in other.fields {
            fields.append(
                Field(
                    nameStart: field.nameStart + shift, nameCount: field.nameCount,
                    valueStart: field.valueStart + shift, valueCount: field.valueCount, unindexed: field.unindexed))
        }
    }

    /// Fields whose values differ on every request: kept out of HPACK's dynamic table, where
    /// they would only push out the fields that repeat (the authorization, the topic).
    private static let unindexedNames: [[UInt8]] = ["apns-id", "apns-expiration", "apns-collapse-id"].map {
        Array($0.utf8)
    }

    /// Connection-specific fields are not allowed in HTTP/2 (RFC 9113 8.2.2); the pool sets
    /// content-length itself.
    private static let droppedNames: [[UInt8]] = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host", "content-length",
    ].map { Array($0.utf8) }

    /// Checks the name is a token (RFC 9110's, as the server reads them: ``HeadCheck/isToken(_:)``;
    /// upper case is allowed here and sent in lower case) and lowercases it in place.
    private mutating func lowercaseToken(_ field: Field) -> Bool {
        guard field.nameCount > 0 else { return false }
        return bytes.withUnsafeMutableBufferPointer { bytes in
            for index in field.nameStart..<(field.nameStart + field.nameCount) {
                let byte = bytes[index]
                guard HeadCheck.isToken(byte) else { return false }
                if byte >= 65, byte <= 90 { bytes[index] = byte + 32 }
            }
            return true
        }
    }

    /// No NUL, CR or LF in the field's value (and, unless `allowSpace`, no space).
    func isFieldValue(_ field: Field, allowSpace: Bool) -> Bool {
        bytes.withUnsafeBufferPointer { bytes in
            for index in field.valueStart..<(field.valueStart + field.valueCount) {
                let byte = bytes[index]
                if byte == 0 || byte == 10 || byte == 13 || (!allowSpace && byte == 32) { return false }
            }
            return true
        }
    }

    private func matches(_ field: Field, _ name: [UInt8]) -> Bool {
        field.nameCount == name.count
            && bytes.withUnsafeBufferPointer { bytes in
                name.withUnsafeBufferPointer { name in
                    memcmp(bytes.baseAddress! + field.nameStart, name.baseAddress!, name.count) == 0
                }
            }
    }
}
