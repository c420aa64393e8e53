#!/usr/bin/env bash
# Kill trials of the library (docs/Reliability.md): grdbcipher-torture starts a child that writes
# through an encrypted DatabasePool (WAL) — transactions of random size, records with JSON
# payloads, FTS5 rows — beside readers, with checkpoints, vacuum(into:), backup(to:), passphrase
# changes and keyring rotations; it kills the child with SIGKILL at a random moment and checks
# that the database opens with the right key, passes integrity_check and cipher_integrity_check,
# holds every reported commit and no half transaction, and that reported copies are complete.
#
# First a self-test: a child that reports its commits before making them must be caught.
#
# Usage: scripts/library-crash-trials.sh [TRIALS]     (default 200; `make test` runs 9)
# Environment: TORTURE (the executable; default: the debug build), CRASH_TRIALS_SEED (the first
# trial's seed; trial i uses SEED + i; replay one with `grdbcipher-torture kill-trials --trials 1
# --seed S`).
set -euo pipefail

trials=${1:-200}
bin=${TORTURE:-$(swift build --show-bin-path 2>/dev/null)/GRDBCipherTorture}
if [ ! -x "$bin" ]; then
    echo "library-crash-trials: no GRDBCipherTorture executable at $bin (swift build first, or set TORTURE)" >&2
    exit 2
fi
seed=${CRASH_TRIALS_SEED:-$(( (RANDOM << 15) | RANDOM ))}
self_test_trials=$(( trials < 9 ? trials : 9 ))
"$bin" kill-trials --trials "$self_test_trials" --seed "$seed" --report-early yes | tail -n 1
"$bin" kill-trials --trials "$trials" --seed "$seed"
