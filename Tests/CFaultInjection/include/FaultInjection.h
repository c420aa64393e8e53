#ifndef GRDBCIPHER_FAULT_INJECTION_H
#define GRDBCIPHER_FAULT_INJECTION_H

// A test-only SQLite VFS that wraps the default one and fails the N-th I/O operation of a kind
// (docs/Reliability.md, "Injected I/O errors"). Only files whose path begins with the armed
// prefix are counted and failed: the other tests of the process go through it untouched.

enum {
    FAULT_READ = 0,
    FAULT_WRITE = 1,
    FAULT_SYNC = 2,
    FAULT_TRUNCATE = 3,
    FAULT_LOCK = 4,
    FAULT_KIND_COUNT = 5
};

/// Registers the wrapper as the default VFS (once; later calls do nothing). Returns an SQLite
/// result code.
int faultvfs_register(void);

/// Counts the operations on files under `prefix` from now on. With `fail_at` > 0, the
/// `fail_at`-th operation of kind `kind` fails with `code` (an SQLite result code); with
/// `persistent`, every later operation of that kind fails too (a full disk).
void faultvfs_arm(const char *prefix, int kind, int fail_at, int code, int persistent);

/// Stops counting and failing.
void faultvfs_disarm(void);

/// The operations of a kind counted since the last arm.
int faultvfs_count(int kind);

/// The faults injected since the last arm.
int faultvfs_injected(void);

#endif
