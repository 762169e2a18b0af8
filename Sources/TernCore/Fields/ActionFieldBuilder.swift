import Foundation
import TernProtocol

/// Builds an action-field operation on one profile field, to pass as (or merge into) `profileFields`.
/// The server applies it to the field's current value.
///
/// ```swift
/// Tern.shared.push.subscription.subscribe(
///     profileFields: Tern.shared.push.subscription.actionField("orders_count").incr(1))
/// Tern.shared.profile.update.updateProfileFields(
///     profileFields: Tern.shared.profile.update.actionField("address").upsert(["city": "Lisbon"]))
/// ```
public struct ActionFieldBuilder: Sendable {
    /// The profile field the operation changes.
    public let key: String

    /// Starts an operation on one profile field; `actionField(_:)` of the subscription and update APIs
    /// makes these.
    ///
    /// - Parameter key: The profile field's name, e.g. `orders_count`.
    public init(key: String) {
        self.key = key
    }

    /// Sets the field to `value`.
    public func set(_ value: Any?) -> [String: Any?] { operation(.set, value) }

    /// Removes the field.
    public func unset() -> [String: Any?] {
        let object: [String: Any?] = [ActionFieldOperation.actionKey: ActionFieldOperation.unset.rawValue]
        return [key: object]
    }

    /// Adds `value` (a number, 1 by default) to the field; a missing field counts as 0.
    public func incr(_ value: Any? = 1) -> [String: Any?] { operation(.incr, value) }

    /// Appends `value` (or each element of a list) to the list the field holds.
    public func add(_ value: Any?) -> [String: Any?] { operation(.add, value) }

    /// Removes `value` (or each element of a list) from the list the field holds.
    public func delete(_ value: Any?) -> [String: Any?] { operation(.delete, value) }

    /// Merges an object into the object the field holds (creating it when absent).
    public func upsert(_ value: Any?) -> [String: Any?] { operation(.upsert, value) }

    private func operation(_ operation: ActionFieldOperation, _ value: Any?) -> [String: Any?] {
        let object: [String: Any?] = [
            ActionFieldOperation.actionKey: operation.rawValue, ActionFieldOperation.valueKey: value,
        ]
        return [key: object]
    }
}
