import Foundation
import TernProtocol

/// Checks of request bodies that need no store; each error says what to send instead.
enum Validation {
    static let maxTokenLength = PushProvider.maxTokenLength
    static let maxBatch = 1000

    /// The provider a request names, or a 400 that lists the ones Tern knows.
    @discardableResult
    static func provider(_ provider: String, field: String = "provider") throws(APIError) -> PushProvider {
        guard let known = PushProvider(rawValue: provider) else {
            throw .badRequest(
                "\(field) \"\(provider.prefix(64))\" is not valid: use one of \(PushProvider.wireNames)")
        }
        return known
    }

    static func token(_ token: String, field: String = "subscription_id") throws(APIError) {
        guard !token.isEmpty else { throw .badRequest("\(field) is empty: send the device's push token") }
        guard TextLength.fits(token, max: maxTokenLength) else {
            throw .badRequest("\(field) is longer than \(maxTokenLength) characters: send the push token as issued")
        }
    }

    /// The longest name an operator gives a thing of a project (a segment, a template).
    static let maxName = 128

    /// The name an operator gives a thing of a project, trimmed of spaces: 1 to ``maxName``
    /// characters.
    static func name(_ text: String?) throws(APIError) -> String {
        let name = (text ?? "").trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, TextLength.fits(name, max: maxName) else {
            throw .badRequest("name must be 1 to \(maxName) characters")
        }
        return name
    }

    static func text(_ value: String, field: String, max: Int = 256) throws(APIError) {
        guard !value.isEmpty else { throw .badRequest("\(field) is empty") }
        guard TextLength.fits(value, max: max) else { throw .badRequest("\(field) is longer than \(max) characters") }
    }

    static func time(_ time: Int64, field: String = "time") throws(APIError) {
        guard time >= 0 else { throw .badRequest("\(field) must be milliseconds since 1970, not negative") }
    }

    static func batch(_ count: Int, field: String) throws(APIError) {
        guard count > 0 else { throw .badRequest("\(field) is empty: send at least one event") }
        guard count <= maxBatch else { throw .badRequest("\(field) has \(count) items: send at most \(maxBatch)") }
    }

    /// The categories a request names must all exist in the resource.
    static func categories(_ cats: [String], in resource: [ResourceCategory]) throws(APIError) {
        let known = Set(resource.map(\.name))
        for name in cats where !known.contains(name) { throw .categoryNotFound }
    }
}

extension PushSubscriptionRequest {
    /// Everything that can be checked without the store.
    func validate() throws(APIError) {
        try Validation.provider(provider)
        try Validation.token(subscriptionId)
        try Validation.time(time)
        try CustomFields.validate(customFields)
        for cat in cats ?? [] where (cat.name ?? "").isEmpty { throw .categoryNotFound }
    }
}

extension PushUpdateRequest {
    func validate() throws(APIError) {
        try Validation.provider(provider)
        try Validation.token(subscriptionId)
        if let oldProvider { try Validation.provider(oldProvider, field: "old_provider") }
        guard let oldSubscriptionId, !oldSubscriptionId.isEmpty else {
            throw .badRequest("old_subscription_id is required: send the token being replaced")
        }
        try Validation.token(oldSubscriptionId, field: "old_subscription_id")
        try CustomFields.validate(customFields)
    }
}

extension PushStatusRequest {
    func validate() throws(APIError) {
        if let provider { try Validation.provider(provider) }
        if let subscriptionId { try Validation.token(subscriptionId) }
        if mode == .latestForProvider, provider == nil {
            throw .badRequest("provider is required with mode latest_for_provider")
        }
    }
}

extension PushTokenRequest {
    func validate() throws(APIError) {
        if let provider { try Validation.provider(provider) }
        if let subscriptionId { try Validation.token(subscriptionId) }
        if (provider == nil) != (subscriptionId == nil) {
            throw .badRequest("send provider and subscription_id together, or neither")
        }
    }
}

extension PushEventRequest {
    func validate() throws(APIError) {
        try Validation.batch(events.count, field: "events")
        for (index, event) in events.enumerated() {
            try Validation.text(event.messageId, field: "events[\(index)].message_id")
            try Validation.time(event.time, field: "events[\(index)].time")
        }
    }
}
