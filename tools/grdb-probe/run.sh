#!/bin/sh
# Builds the probe with GRDB 7.10 and with GRDBCipher, runs both, and shows where their
# outputs differ (see README.md). Debug builds; about a minute each the first time.
set -e
cd "$(dirname "$0")"
(cd grdb && swift build -q) && grdb/.build/debug/Probe > /tmp/grdb-probe-grdb.txt 2>&1 || true
(cd grdbcipher && swift build -q) && grdbcipher/.build/debug/Probe > /tmp/grdb-probe-grdbcipher.txt 2>&1 || true
if diff /tmp/grdb-probe-grdb.txt /tmp/grdb-probe-grdbcipher.txt; then
    echo "grdb-probe: the same output ($(grep -c '^== ' /tmp/grdb-probe-grdb.txt) requests)"
fi
