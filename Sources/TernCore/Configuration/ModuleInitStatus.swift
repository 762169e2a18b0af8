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
    public enum InitStatus: String, Sendable, Equatable {
        case success
        case error
        /// A newer `initialization(configuration:)` call replaced this one before it finished.
        case cancelled
        /// The module did not finish within its time limit.
        case timeout
    }

    /// `core`, `push`, `target`, `profile`, …
    public let moduleName: String
    public let initStatus: InitStatus
    /// Why it did not succeed.
    public let reason: String?

    public init(moduleName: String, initStatus: InitStatus, reason: String? = nil) {
        self.moduleName = moduleName
        self.initStatus = initStatus
        self.reason = reason
    }
}
