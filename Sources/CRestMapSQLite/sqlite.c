/* sqlite3_config is variadic: Swift cannot call it, so RestMapStore calls these wrappers. */
#include <sqlite3.h>
#include "restmap_sqlite.h"

int restmap_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
