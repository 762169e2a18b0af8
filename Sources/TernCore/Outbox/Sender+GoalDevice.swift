import Foundation
import TernProtocol

/// The device a batch of goals names (`"provider"` and `"subscription_id"` beside `"events"`), so
/// that the server finds the person of an app that never logs users in and their goals start
/// triggered messages.
extension Sender {
    /// What a sealed batch named when it first went, kept until the next batch's first send.
    struct GoalBatchDevice: Codable, Sendable {
        /// The batch's key (its `Idempotency-Key`).
        var batch: String
        /// The device it named; nil when it named none.
        var device: TokenData?
    }

    static let goalBatchDeviceKey = "core.goalBatchDevice"

    /// The device a batch of goals names: the device's token when the batch first goes (not when
    /// each goal was queued: goals queued before push registration go with the token known by
    /// then), kept with the batch's key so that every retry sends the same bytes: the server answers
    /// a key sent again with another body 422, which would report goals it recorded as failed. A
    /// token the server would refuse (``PushProvider/acceptsDevice(provider:token:)``) is left out
    /// rather than cost the goals. A batch tried before this was kept (by an SDK that named no
    /// device) names none.
    func goalBatchDevice(_ first: OutboxRow) async -> TokenData? {
        let key = first.batchKey ?? first.idempotencyKey
        if let kept = await store.setting(Self.goalBatchDeviceKey, as: GoalBatchDevice.self), kept.batch == key {
            return kept.device
        }
        guard first.attempts == 0 else { return nil }
        let device = await context.token().flatMap {
            PushProvider.acceptsDevice(provider: $0.provider, token: $0.token) ? $0 : nil
        }
        // Kept before it goes: a crash after the send must not let the retry name another device.
        try? await store.setSetting(Self.goalBatchDeviceKey, GoalBatchDevice(batch: key, device: device))
        return device
    }

    /// `"provider":…,"subscription_id":…,` for the start of a batch's body.
    static func deviceFields(_ device: TokenData) -> Data {
        let encoder = JSONEncoder()
        guard let provider = try? encoder.encode(device.provider), let token = try? encoder.encode(device.token) else {
            return Data()
        }
        var fields = Data("\"provider\":".utf8)
        fields.append(provider)
        fields.append(contentsOf: Array(",\"subscription_id\":".utf8))
        fields.append(token)
        fields.append(UInt8(ascii: ","))
        return fields
    }
}
