import Foundation

/// Shared JSON coders (both are thread-safe): sorted keys, so equal values give equal bytes.
enum JSONCoders {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static let decoder = JSONDecoder()
}

/// A key named at run time: an object's members whatever their names (a body read as any object,
/// a template's content fields written beside its own).
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
