import Foundation

/// `Tern.shared.push.token`: the device's push token and its provider.
public struct TokenAPI: Sendable {
    let core: CoreServices

    /// Saves the device's push token for `provider` (`ios-apns`, `ios-firebase`, `ios-huawei`).
    /// `pushToken` is a `String`, or APNs's `Data` (sent as lower-case hex). When a different token
    /// was saved before, `push/update` moves the subscription to the new one.
    ///
    /// ```swift
    /// Tern.shared.push.token.setToken(provider: "ios-apns", pushToken: deviceToken)
    /// ```
    public func setToken(provider: String, pushToken: Any?) {
        let function = "setToken"
        guard PushProvider(rawValue: provider) != nil else {
            core.emit(.error(function, PushModuleEvents.invalidPushProvider, value: ["provider": provider]))
            return
        }
        guard let token = Self.tokenString(pushToken) else {
            core.emit(
                .error(
                    function, PushModuleEvents.pushTokenIsNil,
                    value: ["reason": "pushToken must be a non-empty String or Data"]))
            return
        }
        let new = TokenData(provider: provider, token: token)
        core.perform(function) { ready in
            let old = await ready.token()
            guard old != new else { return }
            do {
                try await ready.setToken(new)
            } catch {
                ready.emit(
                    .error(function, PushModuleEvents.pushConfigurationSaveFailed, value: ["reason": "\(error)"]))
                return
            }
            ready.emit(.info(function, PushModuleEvents.pushProviderSet, message: "push provider set: \(provider)"))
            guard let old else { return }
            let request = PushUpdateRequest(
                oldProvider: old.provider, oldSubscriptionId: old.token, provider: new.provider,
                subscriptionId: new.token, customFields: await ready.automaticFields())
            guard let body = try? JSONEncoder().encode(request) else { return }
            await ready.enqueue(
                OutboxEntry(
                    endpoint: .pushUpdate, lane: .ordered, body: body,
                    meta: OutboxMeta(
                        function: function, success: PushModuleEvents.tokenUpdateRequestSuccessful,
                        failure: PushModuleEvents.tokenUpdateRequestFailed)))
        }
    }

    /// The device's current token and provider, nil when there is none; `completion` runs on the main queue.
    ///
    /// ```swift
    /// Tern.shared.push.token.getToken { data in print(data?.provider ?? "none") }
    /// ```
    public func getToken(completion: (@Sendable (TokenData?) -> Void)? = nil) {
        core.perform("getToken") { ready in
            let token = await ready.token()
            if let completion { ready.onMain { completion(token) } }
        }
    }

    /// A token as the wire carries it: the string itself, or hex for APNs's bytes.
    static func tokenString(_ value: Any?) -> String? {
        switch value {
        case let string as String:
            let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        case let data as Data:
            return data.isEmpty ? nil : data.map { String(format: "%02x", $0) }.joined()
        default:
            return nil
        }
    }
}
