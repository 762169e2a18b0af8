import Foundation
import TernCore

extension SubscriptionAPI {
    /// An action-field operation on the profile field `key`, for `profileFields`.
    ///
    /// ```swift
    /// Tern.shared.push.subscription.subscribe(
    ///     profileFields: Tern.shared.push.subscription.actionField("orders_count").incr(1))
    /// ```
    public func actionField(_ key: String) -> ActionFieldBuilder { ActionFieldBuilder(key: key) }

    /// ``actionField(_:)`` with the reference's label.
    public func actionField(key: String) -> ActionFieldBuilder { ActionFieldBuilder(key: key) }
}
