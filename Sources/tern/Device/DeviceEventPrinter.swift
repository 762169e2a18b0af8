import Foundation
import TernCore

/// Prints SDK events as JSON lines on standard output:
/// `{"class":"RetryEvent","function":"subscribe","event":"push.pushSubscribeRequestFailed","message":"…","value":{…}}`.
enum DeviceEventPrinter {
    static func line(_ event: Event) -> String {
        var object: [String: Any] = [
            "class": String(describing: type(of: event)),
            "function": event.function,
            "date": ISO8601DateFormatter().string(from: event.date),
        ]
        if let kind = event.event { object["event"] = kind.description }
        if let message = event.message { object["message"] = message }
        if let value = event.value { object["value"] = json(value) }
        return jsonLine(object)
    }

    static func jsonLine(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A value as something JSONSerialization takes.
    static func json(_ value: Any) -> Any {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return NSNull() }
            return json(wrapped)
        }
        switch value {
        case let value as [String: Any]: return value.mapValues(json)
        case let value as [Any]: return value.map(json)
        case let value as String: return value
        case let value as Bool: return value
        case let value as Int: return value
        case let value as Double: return value
        case let value as any Encodable:
            guard let data = try? JSONEncoder().encode(value),
                let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            else { return String(describing: value) }
            return object
        default: return String(describing: value)
        }
    }
}
