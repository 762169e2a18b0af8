import Foundation

/// A message's control group in its stats (`control_group`): who was held out and who it went to,
/// how many of each reached the goal inside the window, and the uplift.
///
/// ```json
/// {"percent": 10, "goal": "purchase", "window_hours": 72, "window_ends_at": 1798365600000,
///  "control": {"people": 100, "converted": 5}, "sent": {"people": 900, "converted": 72},
///  "uplift": 0.6}
/// ```
public struct ControlGroupStats: Codable, Sendable, Equatable {
    /// The share of the audience's people held out, in percent.
    public var percent: Int
    /// The goal (`event_name`) whose people count as converted.
    public var goal: String
    /// How long after the message's start a goal counts.
    public var windowHours: Int
    /// When the window closes (ms since 1970): the figures are final then.
    public var windowEndsAt: Int64
    /// The people held out.
    public var control: Group
    /// The people the message went to (a delivery was written for one of their devices at least).
    public var sent: Group

    /// One group's people, and how many of them reached the goal in the window.
    public struct Group: Codable, Sendable, Equatable {
        /// The people in the group.
        public var people: Int64
        /// Those of them who reached the goal in the window, each once.
        public var converted: Int64

        /// The share of the group that converted, 0 for a group of nobody.
        public var rate: Double { people == 0 ? 0 : Double(converted) / Double(people) }
    }

    /// (sent rate − control rate) / control rate: 0.6 when the people it went to converted 60 %
    /// more often; nil while the control group's rate is 0.
    public var uplift: Double? {
        let base = control.rate
        return base == 0 ? nil : (sent.rate - base) / base
    }

    init(percent: Int, goal: String, windowHours: Int, windowEndsAt: Int64, control: Group, sent: Group) {
        self.percent = percent
        self.goal = goal
        self.windowHours = windowHours
        self.windowEndsAt = windowEndsAt
        self.control = control
        self.sent = sent
    }

    /// Reads the figures back; the uplift is worked out from them again.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            percent: try container.decode(Int.self, forKey: .percent),
            goal: try container.decode(String.self, forKey: .goal),
            windowHours: try container.decode(Int.self, forKey: .windowHours),
            windowEndsAt: try container.decode(Int64.self, forKey: .windowEndsAt),
            control: try container.decode(Group.self, forKey: .control),
            sent: try container.decode(Group.self, forKey: .sent))
    }

    /// Writes the figures with the uplift, null when it cannot be told yet.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(percent, forKey: .percent)
        try container.encode(goal, forKey: .goal)
        try container.encode(windowHours, forKey: .windowHours)
        try container.encode(windowEndsAt, forKey: .windowEndsAt)
        try container.encode(control, forKey: .control)
        try container.encode(sent, forKey: .sent)
        if let uplift {
            try container.encode(uplift, forKey: .uplift)
        } else {
            try container.encodeNil(forKey: .uplift)
        }
    }

    enum CodingKeys: String, CodingKey {
        case percent, goal, control, sent, uplift
        case windowHours = "window_hours"
        case windowEndsAt = "window_ends_at"
    }
}
