import Foundation

/// Something that happened on the device that may start a campaign. Matched on the device: no
/// trigger ever leaves it.
public enum InAppTriggerEvent: Sendable, Equatable {
    /// The app came to the foreground for the first time (``InApp/registerLifecycleTracking()``).
    case openApp
    /// The app moved to a screen (``InApp/setScreen(screen:)``).
    case openPage(String)
    /// The app named a trigger (``InApp/trigger(_:properties:)``).
    case custom(String, properties: [String: JSONValue])
}

extension InAppTriggerRule {
    /// True when `event` starts a campaign with this rule. Pure.
    func matches(_ event: InAppTriggerEvent) -> Bool {
        switch (self, event) {
        case (.openApp, .openApp): true
        case (.openPage(let screens), .openPage(let screen)): screens.isEmpty || screens.contains(screen)
        case (.custom(let name, let conditions), .custom(let triggered, let properties)):
            name == triggered && conditions.allSatisfy { $0.holds(in: properties) }
        default: false
        }
    }
}

extension InAppCondition {
    /// True when the property named by the condition meets it. Pure.
    ///
    /// `exists` with `true` holds when the property is there and not null (with `false`, when it
    /// is not); `in` holds when the property equals one of the list's values; `lt`, `le`, `gt`,
    /// `ge` compare two numbers or two strings and fail for anything else; numbers are equal
    /// whether written as integers or decimals.
    func holds(in properties: [String: JSONValue]) -> Bool {
        var actual: JSONValue? = properties[property]
        if actual == .null { actual = Optional.none }
        let value = self.value ?? .null
        switch op {
        case .exists:
            let wanted = value.boolValue ?? true
            return (actual != nil) == wanted
        case .eq: return actual.map { Self.equal($0, value) } ?? (value == .null)
        case .ne: return !(actual.map { Self.equal($0, value) } ?? (value == .null))
        case .isIn:
            guard let actual, let options = value.arrayValue else { return false }
            return options.contains { Self.equal(actual, $0) }
        case .lt, .le, .gt, .ge:
            guard let actual, let order = Self.compare(actual, value) else { return false }
            switch op {
            case .lt: return order == .orderedAscending
            case .le: return order != .orderedDescending
            case .gt: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        }
    }

    static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        if let left = lhs.numberValue, let right = rhs.numberValue { return left == right }
        return lhs == rhs
    }

    static func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> ComparisonResult? {
        if let left = lhs.numberValue, let right = rhs.numberValue {
            return left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
        }
        if case .string(let left) = lhs, case .string(let right) = rhs {
            return left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
        }
        return nil
    }
}

extension JSONValue {
    /// A number written as an integer or a decimal (never a string or a boolean).
    fileprivate var numberValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
