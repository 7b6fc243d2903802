# Sourced by scripts/setup-code-server.sh and test/integration/harness/setupCodeServerNext.sh.
# The install recipe measured in shared/platform-notes.md: code-server from the npm registry without its install
# scripts (they download ripgrep), then by hand what its postinstall would do, with Debian's ripgrep.
#
# k0_install_code_server DIR VERSION RG — installs code-server@VERSION into DIR/node_modules with the `node` and
# `npm` first on PATH (Node 20 for 4.100, Node 22 for 4.117); RG is the ripgrep binary to link in.
k0_install_code_server() {
  local dir="$1" version="$2" rg="$3"
  local flags=(--no-audit --no-fund --loglevel=error)
  local pkg="$dir/node_modules/code-server"
  export npm_config_yes=true   # some rebuild steps run npx; this npm's config says yes=false
  mkdir -p "$dir"
  printf '{ "name": "k0maru-code-server-%s", "private": true }\n' "$version" > "$dir/package.json"
  (cd "$dir" && npm install "${flags[@]}" --ignore-scripts "code-server@$version")
  (cd "$dir" && npm rebuild "${flags[@]}" argon2)
  (
    cd "$pkg/lib/vscode"
    npm install "${flags[@]}" --omit=dev --ignore-scripts
    # @vscode/ripgrep's postinstall would download a binary; give it Debian's instead.
    mkdir -p node_modules/@vscode/ripgrep/bin
    ln -sfn "$rg" node_modules/@vscode/ripgrep/bin/rg
    npm rebuild "${flags[@]}" --ignore-scripts=false
    # Re-link in case a rebuild step replaced the bin folder.
    mkdir -p node_modules/@vscode/ripgrep/bin
    ln -sfn "$rg" node_modules/@vscode/ripgrep/bin/rg
    # What code-server's postinstall.sh does after its npm install (Linux branch).
    rm -rf node_modules.asar && ln -s node_modules node_modules.asar
    (cd bin/remote-cli && rm -rf code-server && ln -s code-linux.sh code-server)
    (cd bin/helpers && rm -rf browser.sh && ln -s browser-linux.sh browser.sh)
  )
  (cd "$pkg/lib/vscode/extensions" && npm install "${flags[@]}" --omit=dev)
}
