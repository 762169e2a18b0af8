import Foundation

/// The people of messages with a control group, by group (`control_percent`), and their conversions.
public protocol ControlGroupQueries {
    /// Records the people of message `messageId` held out (`heldOut`) and those it goes to
    /// (`sent`); a person recorded already stays as recorded (a person's devices in several
    /// chunks, a resumed fan-out).
    func addControlGroupPeople(messageId: Int64, heldOut: [Int64], sent: [Int64]) throws
    /// Each group's people, and how many of them reached a goal named `goal` of the project's
    /// pixels with its time in `from ..< until` (ms since 1970), each person once.
    func controlGroupFigures(messageId: Int64, projectId: Int64, goal: String, from: Int64, until: Int64) throws
        -> (control: ControlGroupStats.Group, sent: ControlGroupStats.Group)
}
