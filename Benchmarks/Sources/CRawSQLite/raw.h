// The raw C API of the system's SQLite (the library GRDB links), for the baseline GRDB's own
// ratios are measured against.
#include <sqlite3.h>
