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
        core.perform(function) { ready in await TokenChange.apply(new, ready, function: function) }
    }

    /// The device's current token and provider, nil when there is none; `completion` runs on the main queue.
    /// The async form is ``getToken()``.
    ///
    /// ```swift
    /// Tern.shared.push.token.getToken { data in print(data?.provider ?? "none") }
    /// ```
    public func getToken(completion: (@Sendable (TokenData?) -> Void)? = nil) {
        core.perform("getToken", unrun: { completion?(nil) }) { ready in
            let token = await ready.token()
            if let completion { ready.onMain { completion(token) } }
        }
    }

    /// The lower-case hex of APNs's `deviceToken`, as the server sends it to APNs.
    ///
    /// ```swift
    /// func application(_ app: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
    ///     UserDefaults.standard.set(TokenAPI.hexString(deviceToken: deviceToken), forKey: "apnsToken")
    /// }
    /// ```
    public static func hexString(deviceToken: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(deviceToken.count * 2)
        for byte in deviceToken {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The device's current token and provider, nil when there is none.
    ///
    /// ```swift
    /// let token = await Tern.shared.push.token.getToken()
    /// ```
    public func getToken() async -> TokenData? {
        await withCheckedContinuation { continuation in getToken { continuation.resume(returning: $0) } }
    }

    /// A token as the wire carries it: the string itself, or hex for APNs's bytes.
    static func tokenString(_ value: Any?) -> String? {
        switch value {
        case let string as String:
            let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        case let data as Data:
            return data.isEmpty ? nil : hexString(deviceToken: data)
        default:
            return nil
        }
    }
}
