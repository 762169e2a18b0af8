import Foundation
import TernCore

/// What in-app brings to the core besides its init step (``ModuleParts``): its event kinds and its
/// check of the configuration's in-app values (which stay in `TernConfiguration`, as the reference
/// has them there).
enum InAppParts {
    static var parts: ModuleParts {
        ModuleParts(events: InAppModuleEvents.allCases, checkConfiguration: checkConfiguration)
    }

    /// `maxPlacements` below 1 (`maxPlacementsInvalid`) and a `placementsRequestInterval` not
    /// above 0 or not finite (`requestIntervalInvalid`) are reported and replaced by their defaults.
    @Sendable static func checkConfiguration(
        _ configuration: TernConfiguration, _ fixes: TernConfiguration.Builder
    ) -> [EventRecord] {
        var events: [EventRecord] = []
        if configuration.maxPlacements < 1 {
            events.append(
                .error(
                    "initialization", InAppModuleEvents.maxPlacementsInvalid,
                    value: ["maxPlacements": configuration.maxPlacements]))
            fixes.setMaxPlacements(TernConfiguration.defaultMaxPlacements)
        }
        let interval = configuration.placementsRequestInterval
        if !(interval > 0) || !interval.isFinite {
            events.append(
                .error(
                    "initialization", InAppModuleEvents.requestIntervalInvalid,
                    value: ["placementsRequestInterval": interval]))
            fixes.setPlacementsRequestInterval(TernConfiguration.defaultPlacementsRequestInterval)
        }
        return events
    }
}
