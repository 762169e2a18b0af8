import Foundation
import TernCore
import TernProtocol

/// What push brings to the core besides its init step (`ModuleParts`).
enum PushParts {
    /// Fills in `provider` (when the app gave none) and `subscription_id` with the device's token
    /// in a request written before the token arrived; waits (reporting `pushTokenUpdateAwait`) while
    /// there is none.
    @Sendable static func spliceToken(_ row: OutboxRow, _ ready: ReadyCore) async -> ModuleParts.Finalized? {
        guard let token = await ready.token() else {
            return .wait(report: .info(row.meta.function, PushModuleEvents.pushTokenUpdateAwait))
        }
        guard case .object(var object)? = try? JSONDecoder().decode(JSONValue.self, from: row.body) else {
            return .drop(reason: "the stored request body is not a JSON object")
        }
        if object["provider"]?.stringValue?.isEmpty ?? true { object["provider"] = .string(token.provider) }
        object["subscription_id"] = .string(token.token)
        guard let body = try? JSONEncoder().encode(JSONValue.object(object)) else {
            return .drop(reason: "the request body could not be encoded with the token")
        }
        return .ready(body)
    }

    /// The provider priority list names known providers, each once; otherwise `invalidPushProviders`
    /// and the default list.
    @Sendable static func checkProviders(
        _ configuration: TernConfiguration, _ fixes: TernConfiguration.Builder
    ) -> [EventRecord] {
        let providers = configuration.providerPriorityList
        let known = Set(PushProvider.allCases.map(\.rawValue))
        guard
            providers.isEmpty || providers.contains(where: { !known.contains($0) })
                || Set(providers).count != providers.count
        else { return [] }
        fixes.setProviderPriorityList(TernConfiguration.defaultProviderPriorityList)
        return [.error("initialization", PushModuleEvents.invalidPushProviders, value: ["providers": providers])]
    }
}
