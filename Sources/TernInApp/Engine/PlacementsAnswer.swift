import Foundation

/// `inapp/placements`' request body: the device's push identity (when it has one), its screen and
/// the SDK's `maxPlacements`.
struct PlacementsRequestBody: Encodable, Sendable {
    var provider: String?
    var subscriptionId: String?
    var screen: String?
    var maxPlacements: Int

    enum CodingKeys: String, CodingKey {
        case provider, screen
        case subscriptionId = "subscription_id"
        case maxPlacements = "max_placements"
    }
}

/// `inapp/event`'s body.
struct InAppEventBody: Encodable, Sendable {
    var provider: String?
    var subscriptionId: String?
    var smid: String
    var campaignId: String
    var type: String
    var buttonId: String?
    var reason: String?
    var at: String

    enum CodingKeys: String, CodingKey {
        case provider, smid, type, reason, at
        case subscriptionId = "subscription_id"
        case campaignId = "campaign_id"
        case buttonId = "button_id"
    }
}

/// The placements the server answered, read one by one: a malformed placement is left out with an
/// event and the others are kept. Pure.
struct PlacementsAnswer: Sendable, Equatable {
    /// A placement that was left out, and why.
    struct Problem: Sendable, Equatable {
        var event: InAppModuleEvents
        var reason: String
    }

    var campaigns: [InAppCampaign]
    var projectCaps: InAppCaps
    /// The in-app subscription status, nil when there is none (or no profile).
    var status: String?
    var problems: [Problem]
    /// More placements came than `maxPlacements`: the highest-priority ones were kept.
    var limitExceeded: Bool

    /// Reads the envelope's `data`; nil when it has none.
    static func read(_ body: Data, maxPlacements: Int) -> PlacementsAnswer? {
        guard case .object(let envelope)? = try? JSONDecoder().decode(JSONValue.self, from: body),
            case .object(let data)? = envelope["data"]
        else { return nil }
        var campaigns: [InAppCampaign] = []
        var problems: [Problem] = []
        for (index, item) in (data["placements"]?.arrayValue ?? []).enumerated() {
            guard case .object(let fields) = item else {
                problems.append(Problem(event: .inAppContentErrorLoad, reason: "placements[\(index)] is not an object"))
                continue
            }
            guard let smid = fields["smid"]?.stringValue, !smid.isEmpty else {
                problems.append(Problem(event: .smidIsNil, reason: "placements[\(index)] has no smid"))
                continue
            }
            do {
                let data = try JSONEncoder().encode(item)
                campaigns.append(try JSONDecoder().decode(InAppCampaign.self, from: data))
            } catch {
                problems.append(
                    Problem(
                        event: .inAppContentErrorLoad,
                        reason: "placement \(smid) cannot be read: \(Self.describe(error))"))
            }
        }
        var caps = InAppCaps()
        if let value = data["project_caps"], let encoded = try? JSONEncoder().encode(value),
            let decoded = try? JSONDecoder().decode(InAppCaps.self, from: encoded)
        {
            caps = decoded
        }
        let ordered = CampaignSelection.ordered(campaigns)
        let exceeded = ordered.count > maxPlacements
        return PlacementsAnswer(
            campaigns: Array(ordered.prefix(maxPlacements)), projectCaps: caps,
            status: data["inapp_status"]?.stringValue, problems: problems, limitExceeded: exceeded)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "\((context.codingPath + [key]).map(\.stringValue).joined(separator: ".")) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}

/// What the SDK keeps of the last successful `inapp/placements`, in its database.
struct PlacementsCache: Codable, Sendable, Equatable {
    var campaigns: [InAppCampaign]
    var projectCaps: InAppCaps
}
