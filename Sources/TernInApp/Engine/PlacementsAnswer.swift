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

    /// Reads the envelope's `data`; nil when it has none. One decoding pass: each placement is
    /// decoded on its own, so one that cannot be read fails alone.
    static func read(_ body: Data, maxPlacements: Int) -> PlacementsAnswer? {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: body), let data = envelope.data else {
            return nil
        }
        var campaigns: [InAppCampaign] = []
        var problems: [Problem] = []
        for (index, item) in (data.placements ?? []).enumerated() {
            guard item.isObject else {
                problems.append(Problem(event: .inAppContentErrorLoad, reason: "placements[\(index)] is not an object"))
                continue
            }
            guard let smid = item.smid, !smid.isEmpty else {
                problems.append(Problem(event: .smidIsNil, reason: "placements[\(index)] has no smid"))
                continue
            }
            switch item.placement {
            case .success(let placement):
                if let campaign = InAppCampaign(placement, audience: item.audience) { campaigns.append(campaign) }
            case .failure(let error):
                problems.append(
                    Problem(
                        event: .inAppContentErrorLoad,
                        reason: "placement \(smid) cannot be read: \(Self.describe(error))"))
            }
        }
        let ordered = CampaignSelection.ordered(campaigns)
        return PlacementsAnswer(
            campaigns: Array(ordered.prefix(maxPlacements)), projectCaps: data.projectCaps ?? InAppCaps(),
            status: data.status, problems: problems, limitExceeded: ordered.count > maxPlacements)
    }

    /// The envelope with its `data`, read leniently: a part that cannot be read is left out.
    private struct Envelope: Decodable {
        var data: Answer?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            data = try container.decodeIfPresent(Answer.self, forKey: .data)
        }

        enum CodingKeys: String, CodingKey { case data }
    }

    private struct Answer: Decodable {
        var placements: [Lenient]?
        var projectCaps: InAppCaps?
        var status: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            placements = try? container.decodeIfPresent([Lenient].self, forKey: .placements)
            projectCaps = try? container.decodeIfPresent(InAppCaps.self, forKey: .projectCaps)
            status = try? container.decodeIfPresent(String.self, forKey: .status)
        }

        enum CodingKeys: String, CodingKey {
            case placements
            case projectCaps = "project_caps"
            case status = "inapp_status"
        }
    }

    /// One placement: decoded, or why not, with the fields the SDK needs to say which.
    private struct Lenient: Decodable {
        var isObject: Bool
        var smid: String?
        var audience: Bool
        var placement: Result<InAppPlacement, any Error>

        init(from decoder: any Decoder) throws {
            let container = try? decoder.container(keyedBy: CodingKeys.self)
            isObject = container != nil
            smid = (try? container?.decodeIfPresent(String.self, forKey: .smid)) ?? nil
            audience = ((try? container?.decodeIfPresent(Bool.self, forKey: .audience)) ?? nil) ?? false
            do {
                placement = .success(try InAppPlacement(from: decoder))
            } catch {
                placement = .failure(error)
            }
        }

        enum CodingKeys: String, CodingKey { case smid, audience }
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
