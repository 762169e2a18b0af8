#ifndef TERN_CSQLITE_SHIM_H
#define TERN_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer, which Swift cannot import.
static inline sqlite3_destructor_type tern_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
