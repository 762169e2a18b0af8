import Foundation
import TernProtocol

/// The push token the device has now. Kept by the core so every module (and the NSE) sees it.
public struct TokenData: Codable, Sendable, Equatable {
    /// The provider that gave the token: `ios-apns`, `ios-firebase` or `ios-huawei`.
    public let provider: String
    /// The push token, as the provider gave it (APNs tokens as hexadecimal).
    public let token: String

    /// Describes the device's token.
    ///
    /// - Parameters:
    ///   - provider: The provider that gave it.
    ///   - token: The push token.
    public init(provider: String, token: String) {
        self.provider = provider
        self.token = token
    }
}

/// What the sender reads from the rest of the SDK at send time.
struct SenderContext: Sendable {
    var configuration: @Sendable () async -> TernConfiguration?
    var collectionEnabled: @Sendable () async -> Bool
    /// The core as module finalizers see it (nil before a usable configuration).
    var ready: @Sendable () async -> ReadyCore?
    /// The device's push token now (nil before push registration gave one): names the device that
    /// sends a batch of goals.
    var token: @Sendable () async -> TokenData?
}

/// Answers for requests whose caller waits for them (status queries, `unSuspend`), by idempotency key.
actor CompletionRegistry {
    typealias Completion = @Sendable (ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>?) -> Void
    private var completions: [String: Completion] = [:]
    private let bus: EventBus

    init(bus: EventBus) {
        self.bus = bus
    }

    func register(_ key: String, _ completion: @escaping Completion) {
        completions[key] = completion
    }

    /// Calls and forgets the completions of `keys`, if any, on the main queue after the events
    /// raised before them.
    func complete(_ keys: [String], _ response: ResponseModel.ResponseWithHttpCode<ResponseModel.ResponseWithProfile>?)
    {
        guard !completions.isEmpty else { return }
        for key in keys {
            guard let completion = completions.removeValue(forKey: key) else { continue }
            bus.onMain { completion(response) }
        }
    }

    /// Completes every waiting caller with nil (the SDK was cleared).
    func cancelAll() {
        let all = completions
        completions = [:]
        for completion in all.values { bus.onMain { completion(nil) } }
    }
}
