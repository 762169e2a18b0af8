import Foundation

/// One pooled connection, owned by an actor on its own thread so libpq's blocking calls never hold
/// Swift's cooperative threads. It reconnects by itself when the server went away.
actor PostgresSession {
    private let executor: QueueExecutor
    private var connection: PostgresConnection?
    private let url: String

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(url: String, index: Int) {
        self.url = url
        executor = QueueExecutor(label: "tern.store.postgres.\(index)")
    }

    /// Runs `body` in one transaction and commits it. A transaction that failed before anything of it
    /// could have been committed (the connection was dead when it began, a deadlock, a serialization
    /// failure) runs once more on a fresh connection; a commit whose outcome is unknown is not retried.
    func transaction<T>(readOnly: Bool, _ body: (PostgresConnection) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let connection = try connected()
            do {
                try connection.execute(readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN")
            } catch {
                self.connection = nil
                if attempt < 3 { continue }
                throw error.storeError
            }
            let result: T
            do {
                result = try body(connection)
            } catch let error as PostgresError {
                rollback(connection)
                // Nothing was committed: a deadlock, a serialization failure or a lost connection may run again.
                if error.isRetryable || error.isUnavailable, attempt < 3 { continue }
                throw error.storeError
            } catch {
                rollback(connection)
                throw error
            }
            do {
                try connection.execute("COMMIT")
            } catch {
                if !connection.isOpen { self.connection = nil }
                throw error.storeError
            }
            return result
        }
    }

    /// Runs `body` outside a transaction (health checks, migrations that manage their own).
    func run<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try connected()
        do {
            return try body(connection)
        } catch let error as PostgresError {
            if !connection.isOpen { self.connection = nil }
            throw error.storeError
        }
    }

    func close() {
        connection = nil
    }

    private func rollback(_ connection: PostgresConnection) {
        guard connection.isOpen else {
            self.connection = nil
            return
        }
        do {
            try connection.execute("ROLLBACK")
        } catch {
            self.connection = nil
        }
    }

    private func connected() throws(StoreError) -> PostgresConnection {
        if let connection, connection.isOpen { return connection }
        connection = nil
        do {
            let fresh = try PostgresConnection(url: url)
            connection = fresh
            return fresh
        } catch {
            throw .busy("the database is unavailable: \(error.message)")
        }
    }
}
