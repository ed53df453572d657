#!/usr/bin/env bash
# Redis and Postgres for n8n's queue mode, from Debian's `redis-server` and `postgresql` packages,
# each on its own loopback port with its data in a temporary folder.
#   services.sh ensure              install the packages when missing (apt-get update first)
#   services.sh ensure-browser      install Debian's chromium for the editor tests when missing
#   services.sh start <dir>         start both; prints REDIS_PORT=…, PG_PORT=…, PG_DB=… on stdout
#   services.sh stop <dir>          stop both (fast shutdown) and leave <dir> for the caller to delete
# Postgres refuses to run as root: as root it runs as the `postgres` user the Debian package creates.
set -euo pipefail
cmd="${1:-}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

as_pg() { # runs a Postgres program as the user that owns the data
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
  ensure)
    need=()
    command -v redis-server >/dev/null || need+=(redis-server)
    [ -n "$(pg_bin)" ] && [ -x "$(pg_bin)/postgres" ] || need+=(postgresql)
    if [ ${#need[@]} -gt 0 ]; then
      echo "installing ${need[*]} with apt-get" >&2
      $SUDO apt-get update -q >&2
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >&2
    fi
    ;;
  ensure-browser)
    if [ ! -x /usr/bin/chromium ]; then
      echo "installing chromium with apt-get" >&2
      $SUDO apt-get update -q >&2
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium >&2
    fi
    ;;
  start)
    dir="$2"
    mkdir -p "$dir"
    chmod 0755 "$dir"
    if [ "$(id -u)" -eq 0 ] && ! runuser -u postgres -- test -x "$dir"; then
      echo "the postgres user cannot reach $dir: every folder above it must be traversable (chmod o+x)" >&2
      exit 1
    fi
    trap 'bash "$0" stop "$dir"' ERR # a half-started pair is stopped again
    redis_port="$(free_port)"
    pg_port="$(free_port)"
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
      --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >&2
    echo "$redis_port" > "$dir/redis.port"
    mkdir -p "$dir/pg"
    [ "$(id -u)" -ne 0 ] || chown postgres: "$dir/pg"
    bin="$(pg_bin)"
    as_pg "$bin/initdb" -D "$dir/pg/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    as_pg "$bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/postgres.log" -w -t 60 \
      -o "-p $pg_port -k $dir/pg -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >&2
    as_pg "$bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres n8n
    for _ in $(seq 1 50); do
      redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && break
      sleep 0.1
    done
    echo "REDIS_PORT=$redis_port"
    echo "PG_PORT=$pg_port"
    echo "PG_DB=n8n"
    ;;
  stop)
    dir="$2"
    if [ -f "$dir/redis.port" ]; then
      redis-cli -p "$(cat "$dir/redis.port")" shutdown nosave >/dev/null 2>&1 || true
    fi
    if [ -f "$dir/pg/data/postmaster.pid" ]; then
      as_pg "$(pg_bin)/pg_ctl" -D "$dir/pg/data" -m fast -w stop >&2 || true
    fi
    ;;
  *)
    echo "usage: $0 ensure | start <dir> | stop <dir>" >&2
    exit 2
    ;;
esac
