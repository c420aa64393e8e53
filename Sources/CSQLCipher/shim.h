#ifndef GRDBCIPHER_SHIM_H
#define GRDBCIPHER_SHIM_H

// sqlite3_key, sqlite3_rekey and friends are only declared when SQLITE_HAS_CODEC is defined.
#ifndef SQLITE_HAS_CODEC
#define SQLITE_HAS_CODEC 1
#endif

// pkg-config's cflags put SQLCipher's include directory first, so this is SQLCipher's
// sqlite3.h, not the system SQLite's.
#include <sqlite3.h>

// Swift cannot call C variadic functions: one fixed-signature wrapper per sqlite3_db_config shape.
static inline int grdbcipher_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type grdbcipher_transient_destructor(void) {
    return SQLITE_TRANSIENT;
}

#endif
