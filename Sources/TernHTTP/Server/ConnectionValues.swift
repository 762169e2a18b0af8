import CMicroHTTPD
import Foundation

/// Reads a connection's headers or query arguments out of libmicrohttpd.
enum ConnectionValues {
    private final class Collector {
        var values: [String: String] = [:]
        let lowercasingKeys: Bool

        init(lowercasingKeys: Bool) {
            self.lowercasingKeys = lowercasingKeys
        }

        func add(key: String, value: String) {
            let name = key
            if let existing = values[name] {
                values[name] = existing + ", " + value
            } else {
                values[name] = value
            }
        }
    }

    /// Every value of `kind`; repeated keys are joined with `", "`, a key without value maps to `""`.
    /// Bytes that are not UTF-8 are replaced (U+FFFD), never trusted.
    static func collect(
        _ connection: OpaquePointer, kind: MHD_ValueKind, lowercasingKeys: Bool = false
    ) -> [String: String] {
        let collector = Collector(lowercasingKeys: lowercasingKeys)
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values_n(
                connection, kind,
                { cls, _, key, keySize, value, valueSize in
                    guard let cls, let key else { return .YES }
                    let collector = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
                    let name =
                        collector.lowercasingKeys
                        ? HeaderName.lowercased(UnsafeRawBufferPointer(start: key, count: keySize))
                        : text(key, keySize)
                    collector.add(key: name, value: value.map { text($0, valueSize) } ?? "")
                    return .YES
                }, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.values
    }
}

/// Bytes from MHD as text, invalid UTF-8 replaced.
private func text(_ pointer: UnsafePointer<CChar>, _ count: Int) -> String {
    String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
}
