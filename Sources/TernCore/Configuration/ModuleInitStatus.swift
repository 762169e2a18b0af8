import Foundation

/// How one module's initialization ended, reported to the `completion` of
/// ``Tern/initialization(configuration:completion:)``.
///
/// ```swift
/// Tern.shared.initialization(configuration: config) { statuses in
///     for status in statuses where status.initStatus != .success {
///         print(status.moduleName, status.initStatus, status.reason ?? "")
///     }
/// }
/// ```
public struct ModuleInitStatus: Sendable, Equatable {
    /// How a module's initialization ended.
    public enum InitStatus: String, Sendable, Equatable {
        /// The module is ready.
        case success
        /// The module could not initialize; ``ModuleInitStatus/reason`` says why.
        case error
        /// A newer `initialization(configuration:)` call replaced this one before it finished.
        case cancelled
        /// The module did not finish within its time limit.
        case timeout
    }

    /// `core`, `push`, `target`, `profile`, …
    public let moduleName: String
    /// How the module's initialization ended.
    public let initStatus: InitStatus
    /// Why it did not succeed.
    public let reason: String?

    /// Creates a status.
    ///
    /// - Parameters:
    ///   - moduleName: The module's name: `core`, `push`, `target`, `profile`, ...
    ///   - initStatus: How its initialization ended.
    ///   - reason: Why it did not succeed; nil on success.
    public init(moduleName: String, initStatus: InitStatus, reason: String? = nil) {
        self.moduleName = moduleName
        self.initStatus = initStatus
        self.reason = reason
    }
}
