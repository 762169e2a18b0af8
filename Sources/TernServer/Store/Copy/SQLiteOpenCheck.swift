import Foundation

/// Whether another process has a SQLite file open, as SQLite itself tells: every connection to a
/// WAL database holds a shared lock on one byte of the file's shared memory (`-shm`), the
/// "dead-man switch" at offset 128 (`UNIX_SHM_DMS` in SQLite's `os_unix.c`), for as long as it has
/// the file open; a new connection looks at it to know whether it is alone. `tern serve` keeps its
/// connections open while it runs, so a server on the data directory holds it.
enum SQLiteOpenCheck {
    /// The byte of `-shm` every open connection holds a read lock on.
    static let deadManSwitch: off_t = 128

    /// The id of a process that has `path` open, or nil when none does (or the file has no shared
    /// memory: no connection has it open in WAL mode). Call it before this process opens the file:
    /// POSIX locks are per process, and closing the descriptor used here drops this process's own.
    static func otherProcess(holding path: String) -> pid_t? {
        let descriptor = open(path + "-shm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = deadManSwitch
        probe.l_len = 1
        guard fcntl(descriptor, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK) else { return nil }
        return probe.l_pid
    }
}
