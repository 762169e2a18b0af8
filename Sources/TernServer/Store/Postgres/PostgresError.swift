import Foundation

/// A failure PostgreSQL (or libpq) reported, with its SQLSTATE.
struct PostgresError: Error, Equatable, CustomStringConvertible {
    let sqlState: String
    let message: String

    var description: String { "PostgreSQL \(sqlState): \(message)" }

    /// The connection is gone or the server is starting or stopping: retrying on a new connection may work.
    var isUnavailable: Bool {
        sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(sqlState)
    }

    /// A deadlock, a serialization failure, or a lock waited for past `lock_timeout`
    /// (`PostgresBatching.lockTimeout`): the statement failed and may run again.
    var isRetryable: Bool { ["40001", "40P01", "55P03"].contains(sqlState) }

    var storeError: StoreError {
        if sqlState.hasPrefix("23") { return .conflict(message) }
        if ["40001", "40P01", "55P03", "57014"].contains(sqlState) { return .busy(message) }
        if isUnavailable { return .busy("the database is unavailable: \(message)") }
        return .backend(description)
    }
}
