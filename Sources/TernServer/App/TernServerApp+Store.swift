import Foundation

extension TernServerApp {
    /// The store the configuration names: PostgreSQL at `--database`, else the SQLite file under `--data`.
    static func openStore(_ configuration: ServerConfiguration, logger: Logger) throws -> any Store {
        if let url = configuration.databaseURL {
            let store = try PostgresStore(
                url: url, poolSize: configuration.databasePoolSize, groupCommit: configuration.groupCommit)
            logger.info("store", ["postgresql": store.displayURL, "pool": configuration.databasePoolSize])
            return store
        }
        if !FileManager.default.fileExists(atPath: configuration.databasePath) {
            // SQLite gives its -wal and -shm files the main file's mode: create it private.
            _ = FileManager.default.createFile(
                atPath: configuration.databasePath, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        return try SQLiteStore(path: configuration.databasePath, groupCommit: configuration.groupCommit)
    }
}
