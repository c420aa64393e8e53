#!/usr/bin/env bash
# Crash trials for the grdbcipher command: kills each writing command (encrypt, decrypt, export,
# rekey, upgrade, and the keyring's rewrap and rotate) with SIGKILL at random points on a
# database of tens of MB, and checks after every kill that
#   - the input is intact: byte-identical for encrypt, decrypt and export; for rekey and upgrade
#     (in place), the file opens with the old or the new key, with its full content; for a
#     keyring rewrap, the keyring opens with the slot's old or new key (and its other slot), for
#     a rotation, it opens and the database with it, with its full content;
#   - the output is absent or complete, never partial;
#   - what is left beside the target is ours, mode 0600, and never plaintext beside an encrypted
#     target;
#   - the next run succeeds and leaves nothing behind.
#
# Usage: scripts/crash-trials.sh [TRIALS]     (default 100; `make test` runs 10)
# Environment: GRDBCIPHER (the executable; default: the debug build), CRASH_TRIALS_MB (size of
# the database, default 32), CRASH_TRIALS_SEED (for $RANDOM, to replay a run).
set -u

trials=${1:-100}
megabytes=${CRASH_TRIALS_MB:-32}
bin=${GRDBCIPHER:-$(swift build --show-bin-path 2>/dev/null)/grdbcipher}
if [ ! -x "$bin" ]; then
    echo "crash-trials: no grdbcipher executable at $bin (swift build first, or set GRDBCIPHER)" >&2
    exit 2
fi
RANDOM=${CRASH_TRIALS_SEED:-$$}
work=$(mktemp -d "${TMPDIR:-/tmp}/grdbcipher-crash-trials.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CT_KEY="crash trial passphrase" CT_NEW_KEY="crash trial new passphrase"
old=(--passphrase-env CT_KEY)
new=(--passphrase-env CT_NEW_KEY)

# The database: MEGABYTES thousand rows of 1000 random bytes, and a number to sum. The sqlcipher
# shell (which `make deps` installs) writes a plaintext file when given no key.
sqlcipher "$work/plain.db" >/dev/null <<EOF || { echo "crash-trials: cannot create the database (sqlcipher shell)" >&2; exit 2; }
CREATE TABLE chunk(id INTEGER PRIMARY KEY, n INTEGER, data BLOB);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < $((megabytes * 1000)))
INSERT INTO chunk(n, data) SELECT x * 7, randomblob(1000) FROM c;
PRAGMA user_version = 42;
EOF
"$bin" encrypt "$work/plain.db" "$work/v4.db" "${old[@]}" --quiet || exit 2
"$bin" export "$work/v4.db" "$work/v3.db" "${old[@]}" --new-passphrase-env CT_KEY --format 3 --quiet || exit 2
# A database with a keyring: slots primary (primary.key) and recovery (recovery.key). A rewrap
# gives the primary slot next.key. Few key-derivation iterations: the trials are about the
# files, not about PBKDF2's cost.
for name in primary recovery next; do
    printf '%s trial key' "$name" > "$work/$name.key"; chmod 600 "$work/$name.key"
done
cp "$work/plain.db" "$work/keyring.db"
"$bin" key init "$work/keyring.db" --new-key-file "$work/primary.key" --recovery-key-file "$work/recovery.key" \
    --kdf-iterations 1000 --quiet || exit 2

fingerprint_sql="SELECT COUNT(*), SUM(n), SUM(length(data)), SUM(unicode(hex(substr(data, 1 + id % 990, 4)))) FROM chunk"
# The content of a file, opened with the given options; empty when it does not open.
fingerprint() {
    local file=$1; shift
    "$bin" query "$file" "$fingerprint_sql" --format csv "$@" 2>/dev/null | tail -n 1
}
expected=$(fingerprint "$work/v4.db" "${old[@]}")
[ -n "$expected" ] || { echo "crash-trials: cannot read the reference database" >&2; exit 2; }

# Each trial runs in its own directory, with IN (the input) and, for copies, OUT.
commands=(encrypt decrypt export rekey upgrade key-rewrap key-rotate)
arguments() {
    case $1 in
    key-rewrap) echo "key rewrap in.db primary --keyring-key-file $work/recovery.key --new-key-file $work/next.key --kdf-iterations 1000" ;;
    key-rotate) echo "key rotate in.db --keyring-key-file $work/recovery.key" ;;
    encrypt) echo "encrypt in.db out.db --passphrase-env CT_KEY" ;;
    decrypt) echo "decrypt in.db out.db --passphrase-env CT_KEY" ;;
    export) echo "export in.db out.db --passphrase-env CT_KEY --new-passphrase-env CT_NEW_KEY" ;;
    rekey) echo "rekey in.db --passphrase-env CT_KEY --new-passphrase-env CT_NEW_KEY" ;;
    upgrade) echo "upgrade in.db --passphrase-env CT_KEY" ;;
    esac
}
source_of() {
    case $1 in encrypt) echo plain.db ;; upgrade) echo v3.db ;; key-*) echo keyring.db ;; *) echo v4.db ;; esac
}
# Copies the input of a command into a trial's directory (a keyring database with its keyring).
copy_input() {
    local command=$1 dir=$2
    cp "$work/$(source_of "$command")" "$dir/in.db"
    case $command in key-*) cp "$work/keyring.db.keyring" "$dir/in.db.keyring" ;; esac
}

# How long each command takes, uninterrupted: kills fall anywhere in 0-110% of it.
declare -A duration
for command in "${commands[@]}"; do
    dir="$work/calibrate-$command"; mkdir "$dir"; copy_input "$command" "$dir"
    start=$(date +%s%N)
    (cd "$dir" && "$bin" $(arguments "$command") --quiet) || { echo "crash-trials: $command fails uninterrupted" >&2; exit 2; }
    duration[$command]=$(( ($(date +%s%N) - start) / 1000000 ))
    rm -rf "$dir"
done

losses=0 killed=0 finished=0 leftovers_seen=0
loss() {
    losses=$((losses + 1))
    echo "LOSS in trial $trial ($command, killed after ${delay} ms): $*" >&2
}
for trial in $(seq 1 "$trials"); do
    command=${commands[$((RANDOM % ${#commands[@]}))]}
    dir="$work/trial-$trial"; mkdir "$dir"
    copy_input "$command" "$dir"
    before=$(sha256sum < "$dir/in.db")
    delay=$(( (RANDOM * 32768 + RANDOM) % (duration[$command] * 11 / 10 + 1) ))

    (cd "$dir" && exec "$bin" $(arguments "$command") --quiet >/dev/null 2>&1) &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); else finished=$((finished + 1)); fi
    wait "$pid" 2>/dev/null

    # The input.
    case $command in
    encrypt | decrypt | export)
        [ "$(sha256sum < "$dir/in.db")" = "$before" ] || loss "the input changed"
        ;;
    rekey)
        content=$(fingerprint "$dir/in.db" "${old[@]}")
        [ -n "$content" ] || content=$(fingerprint "$dir/in.db" "${new[@]}")
        [ "$content" = "$expected" ] || loss "the file opens with neither key, or lost content"
        ;;
    upgrade)
        [ "$(fingerprint "$dir/in.db" "${old[@]}")" = "$expected" ] || loss "the file does not open with its key, or lost content"
        ;;
    key-rewrap)
        content=$(fingerprint "$dir/in.db" --keyring-key-file "$work/primary.key" --keyring-slot primary)
        [ -n "$content" ] || content=$(fingerprint "$dir/in.db" --keyring-key-file "$work/next.key" --keyring-slot primary)
        [ "$content" = "$expected" ] || loss "the primary slot opens with neither key, or lost content"
        [ "$(fingerprint "$dir/in.db" --keyring-key-file "$work/recovery.key")" = "$expected" ] || loss "the recovery slot no longer opens"
        ;;
    key-rotate)
        [ "$(fingerprint "$dir/in.db" --keyring-key-file "$work/primary.key")" = "$expected" ] || loss "the keyring does not open the database, or lost content"
        (cd "$dir" && "$bin" verify in.db --keyring-key-file "$work/recovery.key" --quiet >/dev/null 2>&1) \
            || loss "verify finds problems after the kill"
        ;;
    esac
    # The output: absent or complete.
    if [ -e "$dir/out.db" ]; then
        case $command in
        encrypt) content=$(fingerprint "$dir/out.db" "${old[@]}") ;;
        decrypt) content=$(fingerprint "$dir/out.db") ;;
        export) content=$(fingerprint "$dir/out.db" "${new[@]}") ;;
        esac
        [ "$content" = "$expected" ] || loss "a partial output"
    fi
    # What is left beside the target.
    for file in "$dir"/.*grdbcipher-*; do
        [ -e "$file" ] || continue
        leftovers_seen=$((leftovers_seen + 1))
        mode=$(stat -c %a "$file")
        [ "$mode" = 600 ] || loss "$(basename "$file") has mode $mode"
        if [ "$command" != decrypt ] && [ "$(head -c 15 "$file" | tr -d '\000')" = "SQLite format 3" ]; then
            loss "$(basename "$file") is plaintext beside an encrypted target"
        fi
    done

    # The next run succeeds (a rekey that went through is checked with the new key).
    next=$(arguments "$command")
    if [ "$command" = rekey ] && [ -z "$(fingerprint "$dir/in.db" "${old[@]}")" ]; then
        next="verify in.db --passphrase-env CT_NEW_KEY"
    fi
    if [ "$command" = key-rewrap ] && [ -n "$(fingerprint "$dir/in.db" --keyring-key-file "$work/next.key" --keyring-slot primary)" ]; then
        # The rewrap went through: rewrap back.
        next="key rewrap in.db primary --keyring-key-file $work/next.key --new-key-file $work/primary.key --kdf-iterations 1000"
    fi
    case $command in encrypt | decrypt | export) next="$next --force" ;; esac
    if ! (cd "$dir" && "$bin" $next --quiet >/dev/null 2>"$dir/next.err"); then
        loss "the next run failed: $(head -n 1 "$dir/next.err")"
    fi
    for file in "$dir"/.*grdbcipher-*; do
        [ -e "$file" ] && loss "the next run left $(basename "$file")"
    done
    rm -rf "$dir"
done

echo "crash trials: $trials trials on a ${megabytes} MB database (encrypt, decrypt, export, rekey, upgrade, key rewrap, key rotate):" \
    "$killed killed, $finished finished before the kill, $leftovers_seen temporary files found after a kill, $losses losses"
[ "$losses" -eq 0 ]
