#!/usr/bin/env bash
# The multi-process soak (docs/Reliability.md): 3 writer and 3 reader processes on one encrypted
# WAL database, with busy timeouts; readers check in every read and in a ValueObservation of the
# other processes' commits (observingExternalChanges) that the balances keep their total and no
# writer's count goes back; at the end, every writer's commits are there and the file is intact.
# Fails on any violation, any SQLITE_BUSY reaching the caller, any process stuck a minute past
# the end.
#
# Usage: scripts/soak.sh [SECONDS]     (default 600; CI runs 30)
# Environment: TORTURE (the executable; default: the debug build).
set -eu

seconds=${1:-600}
bin=${TORTURE:-$(swift build --show-bin-path 2>/dev/null)/GRDBCipherTorture}
if [ ! -x "$bin" ]; then
    echo "soak: no GRDBCipherTorture executable at $bin (swift build first, or set TORTURE)" >&2
    exit 2
fi
"$bin" soak --seconds "$seconds" --writers 3 --readers 3
