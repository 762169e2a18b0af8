import Foundation

/// Keeping the device's notification permission and telling the server when it changed.
///
/// Two settings: the permission as last read or reported (``currentKey``), which every
/// subscription change and token update carries, and the one the server was last sent
/// (``reportedKey``), saved in the same transaction as the request that carries it, so a reading
/// equal to it (after a relaunch too) sends nothing.
enum PermissionChange {
    static let currentKey = "push.permission"
    static let reportedKey = "push.permissionReported"

    /// Saves `permission` and, when it differs from what the server was last sent and the device
    /// has a push subscription (the app asked for a status and there is a token), queues
    /// `push/update` on the same token with `_push_permission` in its fields:
    /// `permissionUpdateRequestSuccessful` / `permissionUpdateRequestFailed`. Without a subscription
    /// nothing is sent: the next `push/subscribe` carries it. `automatic` (a reading the SDK made
    /// itself) sends nothing while collection is off, silently; the next reading tries again.
    static func apply(_ permission: PushPermission, _ ready: ReadyCore, function: String, automatic: Bool) async {
        do {
            try await ready.setSetting(currentKey, .string(permission.rawValue))
        } catch {
            ready.emit(.error(function, PushModuleEvents.pushConfigurationSaveFailed, value: ["reason": "\(error)"]))
            return
        }
        guard await reported(ready) != permission, await StatusChange.lastIntent(ready) != nil,
            let token = await ready.token()
        else { return }
        if automatic, await !ready.collectionEnabled() { return }
        let request = PushUpdateRequest(
            oldProvider: token.provider, oldSubscriptionId: token.token, provider: token.provider,
            subscriptionId: token.token, customFields: [PushPermission.fieldKey: .string(permission.rawValue)])
        guard let body = try? JSONEncoder().encode(request) else {
            ready.emit(.error(function, PushModuleEvents.updateRequestDataIsNil))
            return
        }
        let entry = OutboxEntry(
            endpoint: .pushUpdate, lane: .ordered, body: body,
            meta: OutboxMeta(
                function: function, success: PushModuleEvents.permissionUpdateRequestSuccessful,
                failure: PushModuleEvents.permissionUpdateRequestFailed))
        await ready.enqueue([entry], journal: [reportedKey: .string(permission.rawValue)])
    }

    /// The permission as last read or reported, nil before the first.
    static func current(_ ready: ReadyCore) async -> PushPermission? {
        await ready.setting(currentKey)?.stringValue.flatMap(PushPermission.init(rawValue:))
    }

    /// The permission the server was last sent, nil when never.
    static func reported(_ ready: ReadyCore) async -> PushPermission? {
        await ready.setting(reportedKey)?.stringValue.flatMap(PushPermission.init(rawValue:))
    }

    /// Adds the current permission to a subscription change's or token update's `fields` (the app's
    /// own value for the key wins) and returns the journal entry that records it as sent; nothing
    /// when none is known or the app's value won.
    static func carry(in fields: inout [String: JSONValue], _ ready: ReadyCore) async -> [String: JSONValue] {
        guard let permission = await current(ready) else { return [:] }
        let value = JSONValue.string(permission.rawValue)
        if fields[PushPermission.fieldKey] == nil { fields[PushPermission.fieldKey] = value }
        return fields[PushPermission.fieldKey] == value ? [reportedKey: value] : [:]
    }
}
