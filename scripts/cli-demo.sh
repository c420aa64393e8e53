#!/usr/bin/env bash
# `make demo`, second part: the grdbcipher command encrypts a plaintext database, inspects it,
# re-keys it and verifies it. Keys come from environment variables, never the command line.
set -euo pipefail
SWIFT=${SWIFT:-swift}
# shellcheck disable=SC2086 # SWIFT_FLAGS holds several flags
$SWIFT build ${SWIFT_FLAGS:-} --product grdbcipher
grdbcipher="$($SWIFT build --show-bin-path)/grdbcipher"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

run() {
  echo
  echo "\$ grdbcipher $*"
  "$grdbcipher" "$@"
}

# A plaintext SQLite database, made with the sqlcipher shell (no key: plaintext).
sqlcipher plain.db "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER);
  INSERT INTO player (name, score) VALUES ('Arthur', 100), ('Barbara', 1000), ('Craig', NULL);"

export DEMO_KEY='demo passphrase'
export DEMO_NEW_KEY='another demo passphrase'

run inspect plain.db
run encrypt plain.db secret.db --passphrase-env DEMO_KEY
run inspect secret.db
run inspect secret.db --passphrase-env DEMO_KEY
run rekey secret.db --passphrase-env DEMO_KEY --new-passphrase-env DEMO_NEW_KEY
run verify secret.db --passphrase-env DEMO_NEW_KEY
run query secret.db "SELECT name, score FROM player ORDER BY score DESC" --passphrase-env DEMO_NEW_KEY

echo
echo "\$ grdbcipher verify secret.db --passphrase-env DEMO_KEY   # the old key"
status=0
"$grdbcipher" verify secret.db --passphrase-env DEMO_KEY || status=$?
echo "exit status: $status (3: wrong key or not a database)"
[ "$status" -eq 3 ]
