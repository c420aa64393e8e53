// The raw SQLCipher C API, for the baselines the benchmarks compare GRDBCipher with.
#define SQLITE_HAS_CODEC 1
#include <sqlite3.h>
