#ifndef TERN_CSQLITE_SHIM_H
#define TERN_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer, which Swift cannot import.
static inline sqlite3_destructor_type tern_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's memory statistics, whose
/// global mutex every SQLite allocation takes (a server's store thread allocates on every
/// statement). Works only before SQLite initializes; later it returns SQLITE_MISUSE and changes
/// nothing.
static inline int tern_sqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#endif
