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
    public enum ProviderName {
        public static let apns = PushProvider.apns.rawValue
        public static let firebase = PushProvider.firebase.rawValue
        public static let huawei = PushProvider.huawei.rawValue
    }
}

/// How the SDK asks a provider for its token: each ask waits at most `timeout` seconds for the
/// provider's completion; an ask that gives nothing is repeated up to `attempts` times, waiting
/// `delay × attempt` seconds in between.
public struct ProviderFetchPolicy: Sendable, Equatable {
    public var attempts: Int
    public var delay: TimeInterval
    public var timeout: TimeInterval

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
