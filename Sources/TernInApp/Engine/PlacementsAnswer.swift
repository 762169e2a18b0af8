import Foundation

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
                let placement = try JSONDecoder().decode(InAppPlacement.self, from: JSONEncoder().encode(item))
                if let campaign = InAppCampaign(placement, audience: fields["audience"]?.boolValue ?? false) {
                    campaigns.append(campaign)
                }
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
        return PlacementsAnswer(
            campaigns: Array(ordered.prefix(maxPlacements)), projectCaps: caps,
            status: data["inapp_status"]?.stringValue, problems: problems, limitExceeded: ordered.count > maxPlacements)
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
struct PlacementsCache: Codable, Sendable {
    struct Entry: Codable, Sendable {
        var placement: InAppPlacement
        var audience: Bool
    }

    var entries: [Entry]
    var projectCaps: InAppCaps

    init(_ campaigns: [InAppCampaign], projectCaps: InAppCaps) {
        entries = campaigns.map { Entry(placement: $0.placement, audience: $0.audience) }
        self.projectCaps = projectCaps
    }

    var campaigns: [InAppCampaign] { entries.compactMap { InAppCampaign($0.placement, audience: $0.audience) } }
}
