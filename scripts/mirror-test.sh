#!/usr/bin/env bash
# Proves that a package built on GRDB builds and runs on GRDBCipher through a SwiftPM mirror,
# with no change to its source (README.md, "Use libraries built on GRDB"):
#   1. clones this checkout (its committed HEAD) into a temporary directory, and tags the clone
#      with GRDBCipher's version (VERSION: the GRDB API version it implements, 7.10.x), so
#      that GRDB requirements such as `from: "7.0.0"` resolve to it;
#   2. copies Integrations/GRDBMirrorTest (a library that depends on
#      https://github.com/groue/GRDB.swift and imports GRDB) beside it, and mirrors GRDB.swift
#      to the clone with `swift package config set-mirror`;
#   3. builds it and runs its check, which opens an encrypted database through `import GRDB`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
swift="${SWIFT:-swift}"
version="$(tr -d '[:space:]' < "$root/VERSION")"
work="$(mktemp -d "${TMPDIR:-/tmp}/grdbcipher-mirror.XXXXXX")"
trap 'rm -rf "$work"' EXIT

git clone --quiet --no-hardlinks "$root" "$work/GRDBCipher"
git -C "$work/GRDBCipher" -c user.name=mirror-test -c user.email=mirror-test@localhost \
    tag -a "$version" -m "GRDBCipher $version (mirror test)"

cp -R "$root/Integrations/GRDBMirrorTest" "$work/NoteStore"
rm -rf "$work/NoteStore/.build" "$work/NoteStore/.swiftpm" "$work/NoteStore/Package.resolved"
cd "$work/NoteStore"
"$swift" package config set-mirror \
    --original https://github.com/groue/GRDB.swift \
    --mirror "$work/GRDBCipher"
"$swift" package resolve
# The GRDB dependency must be the clone, at the tagged version (SwiftPM names a mirrored
# package after its mirror).
resolved_version="$("$swift" package show-dependencies --format json | python3 -c '
import json, sys
def walk(node):
    for dependency in node.get("dependencies", []):
        if dependency.get("url") == sys.argv[1]:
            return dependency
        found = walk(dependency)
        if found:
            return found
dependency = walk(json.load(sys.stdin))
print(dependency["version"] if dependency else "")
' "$work/GRDBCipher")"
if [ "$resolved_version" != "$version" ]; then
    echo "mirror-test: GRDB.swift resolved to '$resolved_version', expected GRDBCipher $version" >&2
    exit 1
fi
echo "mirror-test: GRDB.swift (from: \"7.0.0\") resolved to GRDBCipher $version through the mirror"
# Without the project's warning flags: SwiftPM builds the mirrored GRDBCipher as a remote package.
"$swift" build
"$swift" run --skip-build NoteStoreCheck
