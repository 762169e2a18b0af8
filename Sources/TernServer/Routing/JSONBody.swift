import Foundation
import TernHTTP

/// Reading JSON bodies, with errors that say what was wrong and where.
enum JSONBody {
    static func decode<T: Decodable>(_ type: T.Type, from request: HTTPRequest) throws -> T {
        if let contentType = request.header("Content-Type"),
            !contentType.lowercased().hasPrefix("application/json")
        {
            throw APIError(status: 415, reason: "Content-Type must be application/json, not \(contentType.prefix(64))")
        }
        guard !request.body.isEmpty else { throw APIError.badRequest("the body is empty: send a JSON object") }
        if let fast = FastRequestDecoding.decode(type, from: request.body) { return fast }
        return try JSONCoders.decoder.decode(type, from: request.body)
    }

    /// A person's reading of a decoding failure: which field, and what was expected.
    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "field \"\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)\" is required"
        case .typeMismatch(let type, let context):
            let name = path(context.codingPath)
            return name.isEmpty
                ? "the body must be a JSON object"
                : "field \"\(name)\" has the wrong type: expected \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "field \"\(path(context.codingPath))\" must not be null: expected \(typeName(type))"
        case .dataCorrupted(let context):
            let name = path(context.codingPath)
            if name.isEmpty { return "the body is not valid JSON: send a JSON object" }
            return "field \"\(name)\" is not valid: \(context.debugDescription)"
        @unknown default:
            return "the body could not be read as JSON"
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is Double.Type: "a number"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
