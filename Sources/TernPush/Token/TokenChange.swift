import Foundation

/// Saving a new device token, and moving the subscription to it.
enum TokenChange {
    /// Saves `new` as the device's token (`pushProviderSet`) and, when another token was saved before,
    /// queues `push/update` (old → new) in the ordered lane, so the subscription follows the device:
    /// `tokenUpdateRequestSuccessful` / `tokenUpdateRequestFailed`; the update carries the automatic
    /// fields and the notification permission. Nothing happens when `new` is the saved token.
    static func apply(_ new: TokenData, _ ready: ReadyCore, function: String) async {
        let old = await ready.token()
        guard old != new else { return }
        do {
            try await ready.setToken(new)
        } catch {
            ready.emit(.error(function, PushModuleEvents.pushConfigurationSaveFailed, value: ["reason": "\(error)"]))
            return
        }
        ready.emit(.info(function, PushModuleEvents.pushProviderSet, message: "push provider set: \(new.provider)"))
        guard let old else { return }
        var fields = await ready.automaticFields()
        let permission = await PermissionChange.carry(in: &fields, ready)
        let request = PushUpdateRequest(
            oldProvider: old.provider, oldSubscriptionId: old.token, provider: new.provider,
            subscriptionId: new.token, customFields: fields, apnsEnvironment: ready.apnsEnvironment)
        guard let body = try? JSONEncoder().encode(request) else {
            ready.emit(.error(function, PushModuleEvents.updateRequestDataIsNil))
            return
        }
        await ready.enqueue(
            [
                OutboxEntry(
                    endpoint: .pushUpdate, lane: .ordered, body: body,
                    meta: OutboxMeta(
                        function: function, success: PushModuleEvents.tokenUpdateRequestSuccessful,
                        failure: PushModuleEvents.tokenUpdateRequestFailed))
            ], journal: permission)
    }
}
