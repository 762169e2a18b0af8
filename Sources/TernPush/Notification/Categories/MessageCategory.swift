import Foundation
import TernProtocol

/// The category that carries one message's buttons: `tern.<message id>`, never one shared category,
/// so two pushes on screen cannot overwrite each other's buttons.
///
/// Each button becomes the action `tern.button.<button id>`; ``buttonId(fromAction:)`` reads it back
/// when the person taps.
///
/// ```swift
/// MessageCategory.identifier(forMessageId: "m-42")        // "tern.m-42"
/// MessageCategory.buttonId(fromAction: "tern.button.shop") // "shop"
/// ```
public enum MessageCategory {
    /// Every category Tern registers starts with it; the app's own must not.
    public static let prefix = TernPushPayload.categoryPrefix
    /// Every action of a Tern category starts with it.
    public static let actionPrefix = "tern.button."

    /// The category identifier for a message's buttons.
    ///
    /// - Parameter messageId: The message id from the push.
    /// - Returns: `tern.<message id>`.
    public static func identifier(forMessageId messageId: String) -> String {
        prefix + messageId
    }

    /// True for a category Tern registered (and may replace or remove).
    public static func isTernCategory(_ identifier: String) -> Bool {
        identifier.hasPrefix(prefix)
    }

    /// The action identifier for a button.
    ///
    /// - Parameter buttonId: The button's id from the push.
    /// - Returns: `tern.button.<button id>`.
    public static func actionIdentifier(forButtonId buttonId: String) -> String {
        actionPrefix + buttonId
    }

    /// The button id inside a Tern action identifier, or nil for any other action.
    public static func buttonId(fromAction actionIdentifier: String) -> String? {
        guard actionIdentifier.hasPrefix(actionPrefix) else { return nil }
        return String(actionIdentifier.dropFirst(actionPrefix.count))
    }

    /// The message's category, or nil when it has no buttons. A message without an id gets a
    /// one-off identifier (`tern.untracked.<uuid>`), still its own.
    public static func category(for message: TernPushMessage) -> NotificationCategory? {
        guard !message.buttons.isEmpty else { return nil }
        let identifier = identifier(forMessageId: message.messageId ?? "untracked.\(UUID().uuidString)")
        let actions = message.buttons.map { button in
            NotificationAction(
                identifier: actionIdentifier(forButtonId: button.id), title: button.title,
                options: button.action == .dismiss ? [] : .foreground)
        }
        return NotificationCategory(identifier: identifier, actions: actions)
    }
}
