import Foundation
import TernProtocol

/// The provider clients the engine sends through, by provider (`ios-apns`, `ios-firebase`,
/// `ios-huawei`). A provider with no sender fails its deliveries with a reason that says so.
///
/// ```swift
/// await app.senders.register(apnsSender)
/// ```
public actor SenderRegistry {
    private var senders: [PushProvider: any PushSender] = [:]

    /// Makes a registry holding `senders`, one per provider (a later one replaces an earlier one for the
    /// same provider).
    ///
    /// - Parameter senders: The provider clients to start with; none by default.
    public init(_ senders: [any PushSender] = []) {
        for sender in senders { self.senders[sender.provider] = sender }
    }

    /// Adds the sender, replacing an earlier one for the same provider.
    func register(_ sender: any PushSender) {
        senders[sender.provider] = sender
    }

    func sender(for provider: PushProvider) -> (any PushSender)? { senders[provider] }

    /// Closes every sender's connections (after the engine stopped).
    func closeAll() async {
        for sender in senders.values { await sender.close() }
    }
}
