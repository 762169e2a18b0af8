import Foundation
import TernProtocol

/// The `profile` of an answer written straight to bytes. Answers with a profile are encoded inside
/// the store's transaction (the idempotency record keeps them), so JSONEncoder's cost there was
/// paid on the store's one writer for every `sync` subscribe. The output is byte for byte what
/// ``JSONCoders/encoder`` writes (sorted keys, `/` unescaped, nil fields left out); a value whose
/// encoding this writer does not reproduce exactly (a fractional number, a control character other
/// than newline, return and tab) makes it return nil, and JSONEncoder encodes it as before.
enum ProfileEncoding {
    static func envelope(_ profile: ProfileData) -> Data? {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        out.append(contentsOf: #"{"error":0,"error_text":"","profile":"#.utf8)
        guard append(profile, to: &out) else { return nil }
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    static func append(_ profile: ProfileData, to out: inout [UInt8]) -> Bool {
        var object = ObjectWriter()
        if let acid = profile.acid { guard object.string("acid", acid, &out) else { return false } }
        if let id = profile.id { guard object.string("id", id, &out) else { return false } }
        if let isTest = profile.isTest { object.bool("is_test", isTest, &out) }
        if let status = profile.status { guard object.string("status", status, &out) else { return false } }
        if let subscription = profile.subscription {
            object.key("subscription", &out)
            guard append(subscription, to: &out) else { return false }
        }
        object.close(&out)
        return true
    }

    static func append(_ subscription: SubscriptionData, to out: inout [UInt8]) -> Bool {
        var object = ObjectWriter()
        if let cats = subscription.cats {
            object.key("cats", &out)
            out.append(UInt8(ascii: "["))
            for (index, cat) in cats.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                var item = ObjectWriter()
                if let active = cat.active { item.bool("active", active, &out) }
                if let name = cat.name { guard item.string("name", name, &out) else { return false } }
                if let steady = cat.steady { item.bool("steady", steady, &out) }
                if let title = cat.title { guard item.string("title", title, &out) else { return false } }
                item.close(&out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if let fields = subscription.fields {
            object.key("fields", &out)
            guard append(.object(fields), to: &out) else { return false }
        }
        if let hashId = subscription.hashId { guard object.string("hash_id", hashId, &out) else { return false } }
        if let provider = subscription.provider {
            guard object.string("provider", provider, &out) else { return false }
        }
        if let status = subscription.status { guard object.string("status", status, &out) else { return false } }
        if let token = subscription.subscriptionId {
            guard object.string("subscription_id", token, &out) else { return false }
        }
        object.close(&out)
        return true
    }

    static func append(_ value: JSONValue, to out: inout [UInt8]) -> Bool {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): out.append(contentsOf: String(number).utf8)
        case .double: return false
        case .string(let text): return appendString(text, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard append(element, to: &out) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard appendString(key, to: &out) else { return false }
                out.append(UInt8(ascii: ":"))
                guard append(object[key] ?? .null, to: &out) else { return false }
            }
            out.append(UInt8(ascii: "}"))
        }
        return true
    }

    /// A JSON string as JSONEncoder writes it; false for control characters it writes differently.
    static func appendString(_ text: String, to out: inout [UInt8]) -> Bool {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
            case ..<0x20: return false
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return true
    }

    /// Writes `{`, the commas between members, and `}`.
    struct ObjectWriter {
        private var count = 0

        mutating func key(_ name: StaticString, _ out: inout [UInt8]) {
            out.append(UInt8(ascii: count == 0 ? "{" : ","))
            count += 1
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: "\":".utf8)
        }

        mutating func string(_ name: StaticString, _ value: String, _ out: inout [UInt8]) -> Bool {
            key(name, &out)
            return ProfileEncoding.appendString(value, to: &out)
        }

        mutating func bool(_ name: StaticString, _ value: Bool, _ out: inout [UInt8]) {
            key(name, &out)
            out.append(contentsOf: (value ? "true" : "false").utf8)
        }

        func close(_ out: inout [UInt8]) {
            out.append(contentsOf: (count == 0 ? "{}" : "}").utf8)
        }
    }
}
