#!/usr/bin/env bash
# Checks that every unsafe site of the library carries a justification (docs/UnsafeCode.md).
#
# A site is a line of Sources/GRDBCipher that uses Unmanaged, unowned(unsafe), unsafeBitCast,
# assumingMemoryBound, bindMemory, or turns an object into a raw pointer and back
# (passRetained, passUnretained, toOpaque, fromOpaque). Comment lines are not sites.
#
# A site is justified when the line itself, or one of the 3 lines above it, contains
# `Unsafe:` (the comment `// Unsafe: <why it is safe>`), or when it continues a run of
# consecutive site lines whose first line is justified.
#
# Usage: scripts/check-unsafe-sites.sh [directory]   (default: Sources/GRDBCipher)
# Exits 1, listing each site without a justification, when one is missing.
set -euo pipefail

cd "$(dirname "$0")/.."
root="${1:-Sources/GRDBCipher}"

if [[ ! -d "$root" ]]; then
  echo "check-unsafe-sites: no directory $root" >&2
  exit 2
fi

pattern='Unmanaged|unowned\(unsafe\)|unsafeBitCast|assumingMemoryBound|bindMemory|fromOpaque|toOpaque|passRetained|passUnretained'

sites=0
failures=()

while IFS= read -r -d '' file; do
  # Prints "total" then one "file:line: ..." line per unjustified site.
  result="$(awk -v pattern="$pattern" -v file="$file" '
    { line[NR] = $0 }
    END {
      total = 0
      previousSite = 0      # line number of the previous site line
      previousCovered = 0   # whether that site was covered
      for (n = 1; n <= NR; n++) {
        text = line[n]
        if (text ~ /^[[:space:]]*\/\//) continue   # a comment line is not a site
        if (text !~ pattern) continue
        total++
        covered = (index(text, "Unsafe:") > 0)
        for (k = 1; k <= 3 && !covered; k++) {
          if (n - k >= 1 && index(line[n - k], "Unsafe:") > 0) covered = 1
        }
        # A run of consecutive site lines is covered by the comment of its first line.
        if (!covered && previousSite == n - 1 && previousCovered) covered = 1
        if (!covered) printf "%s:%d: unsafe site without an '\''Unsafe:'\'' justification\n", file, n
        previousSite = n
        previousCovered = covered
      }
      print "total " total
    }
  ' "$file")"
  count="$(printf '%s\n' "$result" | awk '$1 == "total" { print $2 }')"
  sites=$((sites + count))
  while IFS= read -r failure; do
    [[ -n "$failure" ]] && failures+=("$failure")
  done < <(printf '%s\n' "$result" | grep -v '^total ' || true)
done < <(find "$root" -name '*.swift' -print0 | sort -z)

if ((${#failures[@]} > 0)); then
  printf '%s\n' "${failures[@]}" >&2
  echo "unsafe sites: $sites, ${#failures[@]} without a justification (see docs/UnsafeCode.md)" >&2
  exit 1
fi
echo "unsafe sites: $sites, all justified"
