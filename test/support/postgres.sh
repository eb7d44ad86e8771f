#!/usr/bin/env bash
# A throw-away PostgreSQL for the worker tests (docs/workers.md), from the Debian packages.
#   postgres.sh start  -> prints `export MCPHOST_TEST_DATABASE_URL=… MCPHOST_TEST_POSTGRES_DIR=…`
#   postgres.sh stop DIR -> stops the server of DIR by its pid and removes DIR
# initdb refuses root, so as root the cluster belongs to `nobody` (setpriv, from util-linux).
set -euo pipefail

pg_bin() {
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -z "$found" ]; then echo "postgres.sh: no PostgreSQL found (apt-get install postgresql)" >&2; exit 1; fi
  echo "$found"
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    bin=$(pg_bin)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/mcphost-pg.XXXXXX")
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown nobody:nogroup "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off" start >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    pid=$(head -1 "$dir/data/postmaster.pid")
    echo "export MCPHOST_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
    echo "export MCPHOST_TEST_POSTGRES_DIR=$dir"
    echo "export MCPHOST_TEST_POSTGRES_PID=$pid"
    ;;
  stop)
    dir=${2:?postgres.sh stop DIR}
    if [ -f "$dir/data/postmaster.pid" ]; then
      pid=$(head -1 "$dir/data/postmaster.pid")
      # SIGINT is PostgreSQL's fast shutdown; then wait for that pid to be gone.
      kill -INT "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -rf "$dir"
    ;;
  *)
    echo "usage: postgres.sh start | stop DIR" >&2
    exit 2
    ;;
esac
