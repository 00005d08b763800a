#ifndef RESTMAP_SQLITE_H
#define RESTMAP_SQLITE_H

/// Turns off SQLite's process-wide memory statistics (`SQLITE_CONFIG_MEMSTATUS`): every SQLite
/// allocation then skips the global mutex that guards the counters, which a multi-threaded
/// process pays for in full (an atomic lock and unlock around each malloc and free). Only
/// `sqlite3_memory_used()`, `sqlite3_memory_highwater()` and the soft heap limit depend on them.
///
/// `sqlite3_config` is variadic (Swift cannot call it) and only works before SQLite initializes:
/// call this before the process opens its first connection. Returns `SQLITE_OK` (0) when the
/// setting took effect, `SQLITE_MISUSE` when SQLite was initialized already (nothing changes).
int restmap_sqlite_disable_memory_statistics(void);

#endif
