#!/usr/bin/env bash
# Makes sure the real hosts the integration and browser tests drive are on this machine, so that the README's
# one test command works on a fresh clone: Debian's chromium, ripgrep and libkrb5-dev (installed with apt-get
# when running as root, otherwise it says what to install), then the cached code-server install.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
[[ -x /usr/bin/chromium ]] || missing+=(chromium)
[[ -x /usr/bin/rg ]] || missing+=(ripgrep)
[[ -e /usr/include/krb5.h || -e /usr/include/krb5/krb5.h ]] || missing+=(libkrb5-dev)
command -v git >/dev/null || missing+=(git)
if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "[ensure-test-host] installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "[ensure-test-host] missing Debian packages: ${missing[*]} — run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
bash scripts/setup-code-server.sh
