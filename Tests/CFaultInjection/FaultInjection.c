#include "FaultInjection.h"
#include <sqlite3.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// The wrapper's file: SQLite allocates szOsFile bytes; the wrapped file follows our header.
typedef struct FaultFile {
    sqlite3_file base;
    sqlite3_file *real;
    const char *name;   // valid until xClose (SQLite's guarantee for xOpen's zName)
} FaultFile;

static sqlite3_vfs *real_vfs;
static sqlite3_vfs fault_vfs;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static char *armed_prefix;
static size_t armed_prefix_length;
static int fail_kind = -1;
static int fail_at;
static int fail_code;
static int fail_persistent;
static int counts[FAULT_KIND_COUNT];
static int injected;

// Counts an operation of `kind` on `file`; returns the error to inject, or SQLITE_OK.
static int fault_check(FaultFile *file, int kind) {
    int result = SQLITE_OK;
    pthread_mutex_lock(&state_lock);
    if (armed_prefix && file->name && strncmp(file->name, armed_prefix, armed_prefix_length) == 0) {
        int n = ++counts[kind];
        if (kind == fail_kind && fail_at > 0 && (n == fail_at || (fail_persistent && n > fail_at))) {
            result = fail_code;
            injected++;
        }
    }
    pthread_mutex_unlock(&state_lock);
    return result;
}

#define REAL(file) (((FaultFile *)(file))->real)

static int fault_close(sqlite3_file *file) {
    int rc = REAL(file)->pMethods->xClose(REAL(file));
    file->pMethods = NULL;
    return rc;
}

static int fault_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    int rc = fault_check((FaultFile *)file, FAULT_READ);
    if (rc != SQLITE_OK) return rc;
    return REAL(file)->pMethods->xRead(REAL(file), buffer, amount, offset);
}

static int fault_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    int rc = fault_check((FaultFile *)file, FAULT_WRITE);
    if (rc != SQLITE_OK) return rc;
    return REAL(file)->pMethods->xWrite(REAL(file), buffer, amount, offset);
}

static int fault_truncate(sqlite3_file *file, sqlite3_int64 size) {
    int rc = fault_check((FaultFile *)file, FAULT_TRUNCATE);
    if (rc != SQLITE_OK) return rc;
    return REAL(file)->pMethods->xTruncate(REAL(file), size);
}

static int fault_sync(sqlite3_file *file, int flags) {
    int rc = fault_check((FaultFile *)file, FAULT_SYNC);
    if (rc != SQLITE_OK) return rc;
    return REAL(file)->pMethods->xSync(REAL(file), flags);
}

static int fault_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    return REAL(file)->pMethods->xFileSize(REAL(file), size);
}

static int fault_lock(sqlite3_file *file, int level) {
    int rc = fault_check((FaultFile *)file, FAULT_LOCK);
    if (rc != SQLITE_OK) return rc;
    return REAL(file)->pMethods->xLock(REAL(file), level);
}

static int fault_unlock(sqlite3_file *file, int level) {
    return REAL(file)->pMethods->xUnlock(REAL(file), level);
}

static int fault_check_reserved_lock(sqlite3_file *file, int *result) {
    return REAL(file)->pMethods->xCheckReservedLock(REAL(file), result);
}

static int fault_file_control(sqlite3_file *file, int op, void *argument) {
    return REAL(file)->pMethods->xFileControl(REAL(file), op, argument);
}

static int fault_sector_size(sqlite3_file *file) {
    return REAL(file)->pMethods->xSectorSize(REAL(file));
}

static int fault_device_characteristics(sqlite3_file *file) {
    return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file));
}

static int fault_shm_map(sqlite3_file *file, int page, int size, int extend, void volatile **address) {
    return REAL(file)->pMethods->xShmMap(REAL(file), page, size, extend, address);
}

static int fault_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    return REAL(file)->pMethods->xShmLock(REAL(file), offset, n, flags);
}

static void fault_shm_barrier(sqlite3_file *file) {
    REAL(file)->pMethods->xShmBarrier(REAL(file));
}

static int fault_shm_unmap(sqlite3_file *file, int delete_flag) {
    return REAL(file)->pMethods->xShmUnmap(REAL(file), delete_flag);
}

static int fault_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    return REAL(file)->pMethods->xFetch(REAL(file), offset, amount, pointer);
}

static int fault_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    return REAL(file)->pMethods->xUnfetch(REAL(file), offset, pointer);
}

// One table per version of the wrapped methods: SQLite checks iVersion before calling the
// shared-memory (2) and memory-mapping (3) methods, so ours must not claim more.
static sqlite3_io_methods fault_methods[3];

static void fault_init_methods(void) {
    for (int version = 1; version <= 3; version++) {
        sqlite3_io_methods *methods = &fault_methods[version - 1];
        memset(methods, 0, sizeof(*methods));
        methods->iVersion = version;
        methods->xClose = fault_close;
        methods->xRead = fault_read;
        methods->xWrite = fault_write;
        methods->xTruncate = fault_truncate;
        methods->xSync = fault_sync;
        methods->xFileSize = fault_file_size;
        methods->xLock = fault_lock;
        methods->xUnlock = fault_unlock;
        methods->xCheckReservedLock = fault_check_reserved_lock;
        methods->xFileControl = fault_file_control;
        methods->xSectorSize = fault_sector_size;
        methods->xDeviceCharacteristics = fault_device_characteristics;
        if (version >= 2) {
            methods->xShmMap = fault_shm_map;
            methods->xShmLock = fault_shm_lock;
            methods->xShmBarrier = fault_shm_barrier;
            methods->xShmUnmap = fault_shm_unmap;
        }
        if (version >= 3) {
            methods->xFetch = fault_fetch;
            methods->xUnfetch = fault_unfetch;
        }
    }
}

static int fault_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    FaultFile *fault_file = (FaultFile *)file;
    fault_file->real = (sqlite3_file *)&fault_file[1];
    fault_file->name = name;
    int rc = real_vfs->xOpen(real_vfs, name, fault_file->real, flags, out_flags);
    const sqlite3_io_methods *real_methods = fault_file->real->pMethods;
    if (real_methods) {
        int version = real_methods->iVersion < 1 ? 1 : (real_methods->iVersion > 3 ? 3 : real_methods->iVersion);
        file->pMethods = &fault_methods[version - 1];
    } else {
        file->pMethods = NULL;
    }
    return rc;
}

static int fault_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs;
    return real_vfs->xDelete(real_vfs, name, sync_dir);
}

static int fault_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return real_vfs->xAccess(real_vfs, name, flags, result);
}

static int fault_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return real_vfs->xFullPathname(real_vfs, name, size, output);
}

static void *fault_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return real_vfs->xDlOpen(real_vfs, name);
}

static void fault_dl_error(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    real_vfs->xDlError(real_vfs, size, message);
}

static void (*fault_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return real_vfs->xDlSym(real_vfs, handle, symbol);
}

static void fault_dl_close(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    real_vfs->xDlClose(real_vfs, handle);
}

static int fault_randomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return real_vfs->xRandomness(real_vfs, size, output);
}

static int fault_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return real_vfs->xSleep(real_vfs, microseconds);
}

static int fault_current_time(sqlite3_vfs *vfs, double *time) {
    (void)vfs;
    return real_vfs->xCurrentTime(real_vfs, time);
}

static int fault_get_last_error(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return real_vfs->xGetLastError ? real_vfs->xGetLastError(real_vfs, size, output) : 0;
}

static int fault_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *time) {
    (void)vfs;
    return real_vfs->xCurrentTimeInt64(real_vfs, time);
}

int faultvfs_register(void) {
    static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
    static int registered;
    int rc = SQLITE_OK;
    pthread_mutex_lock(&once);
    if (!registered) {
        real_vfs = sqlite3_vfs_find(NULL);
        if (!real_vfs) {
            rc = SQLITE_ERROR;
        } else {
            fault_init_methods();
            memset(&fault_vfs, 0, sizeof(fault_vfs));
            fault_vfs.iVersion = 2;
            fault_vfs.szOsFile = (int)sizeof(FaultFile) + real_vfs->szOsFile;
            fault_vfs.mxPathname = real_vfs->mxPathname;
            fault_vfs.zName = "grdbcipher-faults";
            fault_vfs.xOpen = fault_open;
            fault_vfs.xDelete = fault_delete;
            fault_vfs.xAccess = fault_access;
            fault_vfs.xFullPathname = fault_full_pathname;
            fault_vfs.xDlOpen = fault_dl_open;
            fault_vfs.xDlError = fault_dl_error;
            fault_vfs.xDlSym = fault_dl_sym;
            fault_vfs.xDlClose = fault_dl_close;
            fault_vfs.xRandomness = fault_randomness;
            fault_vfs.xSleep = fault_sleep;
            fault_vfs.xCurrentTime = fault_current_time;
            fault_vfs.xGetLastError = fault_get_last_error;
            fault_vfs.xCurrentTimeInt64 = fault_current_time_int64;
            rc = sqlite3_vfs_register(&fault_vfs, 1);
            registered = (rc == SQLITE_OK);
        }
    }
    pthread_mutex_unlock(&once);
    return rc;
}

void faultvfs_arm(const char *prefix, int kind, int at, int code, int persistent) {
    pthread_mutex_lock(&state_lock);
    free(armed_prefix);
    armed_prefix = strdup(prefix);
    armed_prefix_length = strlen(prefix);
    fail_kind = kind;
    fail_at = at;
    fail_code = code;
    fail_persistent = persistent;
    memset(counts, 0, sizeof(counts));
    injected = 0;
    pthread_mutex_unlock(&state_lock);
}

void faultvfs_disarm(void) {
    pthread_mutex_lock(&state_lock);
    free(armed_prefix);
    armed_prefix = NULL;
    fail_kind = -1;
    fail_at = 0;
    pthread_mutex_unlock(&state_lock);
}

int faultvfs_count(int kind) {
    pthread_mutex_lock(&state_lock);
    int n = (kind >= 0 && kind < FAULT_KIND_COUNT) ? counts[kind] : 0;
    pthread_mutex_unlock(&state_lock);
    return n;
}

int faultvfs_injected(void) {
    pthread_mutex_lock(&state_lock);
    int n = injected;
    pthread_mutex_unlock(&state_lock);
    return n;
}
