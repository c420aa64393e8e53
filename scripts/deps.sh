#!/usr/bin/env bash
# Installs what GRDBCipher needs to build and test: SQLCipher >= 4.5 (headers, library, CLI)
# and OpenSSL's libcrypto headers. Idempotent: quick when everything is present.
set -euo pipefail

MIN_MAJOR=4
MIN_MINOR=5

log() { printf 'deps: %s\n' "$*" >&2; }

# Prints the SQLCipher version pkg-config knows, e.g. "4.6.1", or nothing.
installed_version() {
  pkg-config --modversion sqlcipher 2>/dev/null || true
}

# Debian's libsqlcipher-dev reports the SQLite version through pkg-config (3.46.1 for SQLCipher
# 4.6.1, 3.15.2 for SQLCipher 3.4.1), so we read the Debian package version instead when we can.
debian_sqlcipher_version() {
  dpkg-query -W -f='${Status} ${Version}\n' libsqlcipher-dev 2>/dev/null \
    | awk '$3 == "installed" { print $4 }' | sed -E 's/^[0-9]+://; s/[-+~].*$//'
}

version_ok() {
  local v="$1" major minor
  major=${v%%.*}; minor=${v#*.}; minor=${minor%%.*}
  [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || return 1
  (( major > MIN_MAJOR || (major == MIN_MAJOR && minor >= MIN_MINOR) ))
}

have_everything_debian() {
  local v
  v=$(debian_sqlcipher_version)
  [[ -n "$v" ]] && version_ok "$v" \
    && command -v sqlcipher >/dev/null \
    && dpkg-query -W -f='${Status}\n' libssl-dev 2>/dev/null | grep -q 'install ok installed' \
    && command -v pkg-config >/dev/null
}

if [[ -r /etc/os-release ]]; then . /etc/os-release; fi

if [[ "${ID:-}" == "debian" && "${VERSION_CODENAME:-}" == "bookworm" ]]; then
  if have_everything_debian; then
    log "SQLCipher $(debian_sqlcipher_version) present"
    exit 0
  fi
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    log "enabling bookworm-backports (Debian 12's own SQLCipher 3.4.1 is too old)"
    $SUDO tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  fi
  log "apt-get update"
  # A third-party repository that cannot be reached must not stop us: the install below
  # fails clearly if Debian's own lists are missing.
  $SUDO apt-get update -qq >/dev/null || log "warning: apt-get update reported errors; trying the install anyway"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports \
    libsqlcipher-dev sqlcipher libsqlcipher1 >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libssl-dev pkg-config >/dev/null
  v=$(debian_sqlcipher_version)
  if ! version_ok "$v"; then
    log "error: SQLCipher $v is installed, but GRDBCipher needs 4.5 or newer."
    log "Debian 12's default libsqlcipher-dev (3.4.1, built on SQLite 3.15) lacks the SQLCipher 4"
    log "format, cipher_compatibility and the SQLite features GRDB relies on. Install it from"
    log "bookworm-backports: apt-get install -t bookworm-backports libsqlcipher-dev sqlcipher"
    exit 1
  fi
  log "SQLCipher $v installed"
  exit 0
fi

# Elsewhere: check, and say what to run.
if pkg-config --exists sqlcipher 2>/dev/null && command -v sqlcipher >/dev/null; then
  v=$(sqlcipher ':memory:' 'PRAGMA cipher_version;' 2>/dev/null | awk '{print $1}')
  if version_ok "$v"; then
    log "SQLCipher $v present"
    exit 0
  fi
  log "error: SQLCipher ${v:-unknown} found; GRDBCipher needs 4.5 or newer."
fi
case "$(uname -s)" in
  Darwin) log "run: brew install sqlcipher openssl pkg-config" ;;
  *)
    if command -v apt-get >/dev/null; then
      log "run: sudo apt-get install libsqlcipher-dev sqlcipher libssl-dev pkg-config   (SQLCipher 4.5 or newer)"
    elif command -v dnf >/dev/null; then
      log "run: sudo dnf install sqlcipher-devel sqlcipher openssl-devel pkgconf   (SQLCipher 4.5 or newer)"
    else
      log "install SQLCipher 4.5 or newer (library, headers, CLI), OpenSSL headers and pkg-config"
    fi ;;
esac
exit 1
