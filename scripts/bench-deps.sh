#!/usr/bin/env bash
# What `make bench` needs beyond `make deps`: the system's SQLite headers, for GRDB 7.10 and its
# raw C baseline (Benchmarks/GRDBBenchmarks). Idempotent.
set -euo pipefail

if pkg-config --exists sqlite3 2>/dev/null; then
  exit 0
fi
if command -v apt-get >/dev/null; then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  echo "bench-deps: installing libsqlite3-dev (GRDB links the system's SQLite)" >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev >/dev/null
  exit 0
fi
echo "bench-deps: install the SQLite 3 development files (sqlite3.pc and sqlite3.h)" >&2
exit 1
