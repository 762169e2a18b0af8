import Foundation

/// Gives the SDK the device's APNs token: the hex of the `deviceToken` the app received in
/// `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)`
/// (``TokenAPI/hexString(deviceToken:)`` makes it). Call `completion` once, with nil when there is none yet.
///
/// ```swift
/// final class APNSProvider: APNSInterface {
///     func getToken(completion: @escaping @Sendable (String?) -> Void) {
///         completion(UserDefaults.standard.string(forKey: "apnsToken"))
///     }
/// }
/// Tern.shared.push.token.setAPNSTokenProvider(APNSProvider())
/// ```
public protocol APNSInterface: Sendable {
    /// Gives the APNs token as hexadecimal: call `completion` once, with nil when there is none yet.
    ///
    /// - Parameter completion: Receives the token or nil; may be called on any thread.
    func getToken(completion: @escaping @Sendable (String?) -> Void)
}

/// Gives the SDK the device's Firebase Cloud Messaging token, and deletes it at Firebase.
///
/// ```swift
/// final class FCMProvider: FCMInterface {
///     func getToken(completion: @escaping @Sendable (String?) -> Void) {
///         Messaging.messaging().token { token, _ in completion(token) }
///     }
///     func deleteToken(completion: @escaping @Sendable (Bool) -> Void) {
///         Messaging.messaging().deleteToken { error in completion(error == nil) }
///     }
/// }
/// ```
public protocol FCMInterface: Sendable {
    /// Gives the Firebase token: call `completion` once, with nil when there is none yet.
    ///
    /// - Parameter completion: Receives the token or nil; may be called on any thread.
    func getToken(completion: @escaping @Sendable (String?) -> Void)
    /// Deletes the token at Firebase; `completion(true)` when it is gone.
    func deleteToken(completion: @escaping @Sendable (Bool) -> Void)
}

/// Gives the SDK the device's Huawei Push Kit token, and deletes it at Huawei.
///
/// ```swift
/// Tern.shared.push.token.setHMSTokenProvider(HMSProvider())
/// ```
public protocol HMSInterface: Sendable {
    /// Gives the Huawei Push Kit token: call `completion` once, with nil when there is none yet.
    ///
    /// - Parameter completion: Receives the token or nil; may be called on any thread.
    func getToken(completion: @escaping @Sendable (String?) -> Void)
    /// Deletes the token at Huawei; `completion(true)` when it is gone.
    func deleteToken(completion: @escaping @Sendable (Bool) -> Void)
}

/// The provider names the SDK and the server use.
///
/// ```swift
/// Tern.shared.push.token.changeProviderPriority([
///     PushConstants.ProviderName.firebase, PushConstants.ProviderName.apns, PushConstants.ProviderName.huawei,
/// ])
/// ```
public enum PushConstants {
    /// The providers' names, for `changeProviderPriority(_:)` and `setToken(provider:pushToken:)`.
    public enum ProviderName {
        /// `ios-apns`: Apple Push Notification service.
        public static let apns = PushProvider.apns.rawValue
        /// `ios-firebase`: Firebase Cloud Messaging.
        public static let firebase = PushProvider.firebase.rawValue
        /// `ios-huawei`: Huawei Mobile Services.
        public static let huawei = PushProvider.huawei.rawValue
    }
}

/// How the SDK asks a provider for its token: each ask waits at most `timeout` seconds for the
/// provider's completion; an ask that gives nothing is repeated up to `attempts` times, waiting
/// `delay × attempt` seconds in between.
public struct ProviderFetchPolicy: Sendable, Equatable {
    /// How many times a provider is asked before the SDK gives up (`pushTokenIsNil`); default 3, at least 1.
    public var attempts: Int
    /// Seconds to wait before the next ask, times the attempt number; default 0.5.
    public var delay: TimeInterval
    /// Seconds one ask waits for the provider's completion; default 10.
    public var timeout: TimeInterval

    /// A policy; values are clamped (attempts at least 1, delay and timeout at least 0).
    ///
    /// - Parameters:
    ///   - attempts: Asks before giving up; default 3.
    ///   - delay: Base wait between asks in seconds; default 0.5.
    ///   - timeout: Seconds each ask waits; default 10.
    public init(attempts: Int = 3, delay: TimeInterval = 0.5, timeout: TimeInterval = 10) {
        self.attempts = max(1, attempts)
        self.delay = max(0, delay)
        self.timeout = max(0, timeout)
    }
}

/// One provider as the coordinator uses it, whatever its protocol.
struct TokenSource: Sendable {
    let get: @Sendable (@escaping @Sendable (String?) -> Void) -> Void
    /// Nil for APNs, whose token cannot be deleted by the app.
    let delete: (@Sendable (@escaping @Sendable (Bool) -> Void) -> Void)?

    init(_ provider: any APNSInterface) {
        get = { provider.getToken(completion: $0) }
        delete = nil
    }

    init(_ provider: any FCMInterface) {
        get = { provider.getToken(completion: $0) }
        delete = { provider.deleteToken(completion: $0) }
    }

    init(_ provider: any HMSInterface) {
        get = { provider.getToken(completion: $0) }
        delete = { provider.deleteToken(completion: $0) }
    }
}
