import Foundation
import TernProtocol

/// How a notification is presented beyond its text (iOS 15 and later): how it interrupts
/// (`aps.interruption-level`), where the summary ranks it (`aps.relevance-score`), which window it
/// opens (`aps.target-content-id`) and which Focus lets it through (`aps.filter-criteria`). A
/// critical alert's sound is APNs' sound dictionary (`critical: 1`), which plays through the mute
/// switch.
struct NotificationPresentation: Sendable, Equatable {
    static let interruptionLevels = ["passive", "active", "time-sensitive", "critical"]
    /// The longest `target_content_id` and `filter_criteria`, in characters.
    static let maxIdentifier = 256

    var interruptionLevel: String?
    var relevanceScore: Double?
    var targetContentId: String?
    var filterCriteria: String?

    init() {}

    /// The request's presentation, checked; each refusal names the field and what it takes.
    init(_ request: MessageRequest) throws(APIError) {
        if let level = request.interruptionLevel, !Self.interruptionLevels.contains(level) {
            throw .badRequest(
                "interruption_level must be \(Self.interruptionLevels.joined(separator: ", ")), not \(level.prefix(32))"
            )
        }
        if let score = request.relevanceScore, !(score.isFinite && (0...1).contains(score)) {
            throw .badRequest("relevance_score must be 0 to 1 (the summary puts the highest first)")
        }
        try MessagePlan.text(request.targetContentId, "target_content_id", max: Self.maxIdentifier)
        try MessagePlan.text(request.filterCriteria, "filter_criteria", max: Self.maxIdentifier)
        interruptionLevel = request.interruptionLevel
        relevanceScore = request.relevanceScore
        targetContentId = request.targetContentId
        filterCriteria = request.filterCriteria
    }

    /// The fields of it `request` names, for the refusals of pushes that show nothing (background)
    /// or show something else (a Live Activity).
    static func given(_ request: MessageRequest) -> [(String, Bool)] {
        [
            ("interruption_level", request.interruptionLevel != nil),
            ("relevance_score", request.relevanceScore != nil),
            ("target_content_id", request.targetContentId != nil),
            ("filter_criteria", request.filterCriteria != nil),
        ]
    }

    /// Writes its keys into a notification's `aps`; a critical alert's `sound` becomes APNs'
    /// dictionary around `sound` (`default` when none was given), at full volume.
    func apply(to aps: inout [String: JSONValue], sound: String?) {
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel) }
        if let relevanceScore { aps["relevance-score"] = .double(relevanceScore) }
        if let targetContentId { aps["target-content-id"] = .string(targetContentId) }
        if let filterCriteria { aps["filter-criteria"] = .string(filterCriteria) }
        if interruptionLevel == "critical" {
            aps["sound"] = .object(["critical": .int(1), "name": .string(sound ?? "default"), "volume": .double(1)])
        }
    }
}
