#!/usr/bin/env bash
# Installs what `make docs-check` needs beyond `make deps`: a headless browser (Debian's
# chromium). Idempotent: quick when it is present.
set -euo pipefail

log() { printf 'docs-deps: %s\n' "$*" >&2; }

find_chromium() {
  local name
  for name in chromium chromium-browser google-chrome; do
    if command -v "$name" >/dev/null; then command -v "$name"; return 0; fi
  done
  return 1
}

if path=$(find_chromium); then
  log "$("$path" --version 2>/dev/null || echo "$path") present"
  exit 0
fi

if command -v apt-get >/dev/null; then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  log "installing chromium (Debian package)"
  $SUDO apt-get update -qq >/dev/null || log "warning: apt-get update reported errors; trying the install anyway"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    chromium fonts-dejavu-core >/dev/null
  path=$(find_chromium)
  log "$("$path" --version 2>/dev/null) installed"
  exit 0
fi

case "$(uname -s)" in
  Darwin) log "install Chromium or Google Chrome, then set CHROMIUM=/path/to/the/binary" ;;
  *) log "install Chromium (a headless-capable build), then set CHROMIUM=/path/to/the/binary" ;;
esac
exit 1
