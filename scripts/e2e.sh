#!/usr/bin/env bash
# The single-process end-to-end suite on every n8n version users run (MEDIAGEN_N8N_VERSIONS; by default
# both versions of scripts/n8n-versions.env),
# against one `npm pack` tarball of this repo (MEDIAGEN_TARBALL, or packed here), installed as a community package.
# Extra arguments go to jest (for example a test name filter: -t 'trigger').
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/n8n-versions.env
VERSIONS="${MEDIAGEN_N8N_VERSIONS:-$N8N_MAIN_VERSION $N8N_V1_VERSION}"
pack_dir="$(mktemp -d)" logs="$(mktemp -d)"
trap 'rm -rf "$pack_dir" "$logs"' EXIT
if [ -z "${MEDIAGEN_TARBALL:-}" ]; then # .ci/run packs once for every suite
  start=$SECONDS
  # .npmrc sets ignore-scripts=true (for npm ci): turn scripts back on so prepack builds dist/
  npm pack --ignore-scripts=false --loglevel=warn --pack-destination "$pack_dir" >/dev/null
  export MEDIAGEN_TARBALL="$pack_dir/$(ls "$pack_dir")"
  echo "packed $(basename "$MEDIAGEN_TARBALL") in $((SECONDS - start)) s"
fi
# The versions run side by side: each suite waits on n8n and the sandbox far more than it computes, and every
# n8n, sandbox and helper server takes a free port and its own user folder. Each version's output is kept in a
# file and printed whole when it ends, so the two never interleave.
pids=()
for v in $VERSIONS; do
  (
    t=$SECONDS rc=0
    MEDIAGEN_N8N_VERSION="$v" npx jest --runInBand --config jest.e2e.config.js "$@" >"$logs/$v.log" 2>&1 || rc=$?
    echo "== n8n $v: $((SECONDS - t)) s$([ "$rc" -eq 0 ] || echo ", failed (exit $rc)")" >>"$logs/$v.log"
    exit "$rc"
  ) &
  pids+=("$!")
done
failed=0
set -- $VERSIONS
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
  echo "== end-to-end on n8n $1"
  cat "$logs/$1.log"
  shift
done
exit "$failed"
