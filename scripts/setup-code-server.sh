#!/usr/bin/env bash
# Installs code-server (the real VS Code server with its Node extension host) into a git-ignored cache folder,
# for the integration tests. It lives outside the extension's own node_modules on purpose: as a devDependency
# its postinstall (which downloads ripgrep from the internet) would break `npm ci` offline.
#
# The recipe is the one measured in shared/platform-notes.md: install without scripts, then redo by hand what the
# postinstall would do, with Debian's ripgrep (/usr/bin/rg) in place of the download.
# Needs: Debian packages ripgrep and libkrb5-dev (for the kerberos addon), a C++ toolchain, Node 20.
# Idempotent: when the cached install is complete and starts, it does nothing.
set -euo pipefail

VERSION="4.100.3"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${K0_CODE_SERVER_DIR:-$ROOT/.cache/code-server}"
PKG="$CACHE/node_modules/code-server"
MARKER="$CACHE/.installed-$VERSION"
RG="${K0_RIPGREP:-/usr/bin/rg}"

log() { printf '[setup-code-server] %s\n' "$*"; }

# Prints the installed version line, e.g. "4.100.3 <commit> with Code 1.100.3". code-server writes a default
# config file on every start; point it into the cache rather than the user's ~/.config.
installed_version() {
  XDG_CONFIG_HOME="$CACHE/.xdg-config" node "$PKG/out/node/entry.js" --version 2>/dev/null | tail -n 1
}

# A finished install writes the marker last; we still check that the server answers --version, so a
# half-deleted cache is repaired instead of trusted.
if [[ -f "$MARKER" ]] && out="$(installed_version)" && [[ "$out" == "$VERSION "* ]]; then
  log "code-server $VERSION already installed in $CACHE"
  exit 0
fi

if [[ ! -x "$RG" ]]; then
  echo "[setup-code-server] ripgrep not found at $RG (apt-get install ripgrep)" >&2
  exit 1
fi

node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [[ "$node_major" != "20" ]]; then
  # code-server 4.100.3's native addons and its engines field are for Node 20.
  echo "[setup-code-server] code-server $VERSION needs Node 20, found $(node --version)" >&2
  exit 1
fi

start=$SECONDS
log "installing code-server $VERSION into $CACHE"
rm -rf "$CACHE"
source "$ROOT/scripts/lib/code-server-recipe.sh"
k0_install_code_server "$CACHE" "$VERSION" "$RG"

out="$(installed_version || true)"
if [[ "$out" != "$VERSION "* ]]; then
  echo "[setup-code-server] installed code-server does not report $VERSION: $out" >&2
  exit 1
fi
touch "$MARKER"
log "done in $((SECONDS - start)) s ($(du -sh "$CACHE" | cut -f1))"
