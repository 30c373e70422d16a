#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL server, then removes every trace of it.
#
#   scripts/with-postgres.sh CMD ARGS...
#
# initdb's a fresh cluster in a temporary folder, starts it on a free loopback port (TCP on
# 127.0.0.1 only; its unix socket stays inside the folder), creates database dw_test, exports
# DW_TEST_PG_URL=postgresql://USER@127.0.0.1:PORT/dw_test and runs CMD. On exit, pass or fail or
# Ctrl-C, the server is stopped and the folder removed; the exit code is CMD's.
#
# PostgreSQL refuses to run as root, so under root the server runs as the unprivileged `postgres`
# user (created by the Debian package) or, failing that, a `dwtest` system user created here.
# PG_BIN may name the folder holding initdb/pg_ctl/postgres.
set -euo pipefail

prog=$(basename "$0")
if [[ $# -eq 0 ]]; then
  echo "usage: $prog CMD [ARGS...]   (runs CMD with DW_TEST_PG_URL set to a throwaway database)" >&2
  exit 2
fi

# --- find the server binaries ---------------------------------------------------------------
pg_bin=""
for dir in "${PG_BIN:-}" /usr/lib/postgresql/15/bin $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -rV) \
           "$(dirname "$(command -v pg_ctl 2>/dev/null || echo /nonexistent/pg_ctl)")"; do
  if [[ -n "$dir" && -x "$dir/initdb" && -x "$dir/pg_ctl" && -x "$dir/postgres" ]]; then
    pg_bin=$dir
    break
  fi
done
if [[ -z "$pg_bin" ]]; then
  echo "$prog: PostgreSQL server binaries (initdb, pg_ctl, postgres) not found." >&2
  echo "$prog: install the Debian package 'postgresql' (apt-get install postgresql), or set PG_BIN." >&2
  exit 2
fi

# --- who runs the server --------------------------------------------------------------------
if [[ $(id -u) -eq 0 ]]; then
  if id -u postgres >/dev/null 2>&1; then
    db_user=postgres
  else
    db_user=dwtest
    if ! id -u "$db_user" >/dev/null 2>&1; then
      useradd --system --no-create-home --shell /usr/sbin/nologin "$db_user"
    fi
  fi
  as_db_user() { runuser -u "$db_user" -- "$@"; }
  # The folder must be reachable by db_user, which a root-only TMPDIR may not be.
  tmp_parent=/tmp
else
  db_user=$(id -un)
  as_db_user() { "$@"; }
  tmp_parent=${TMPDIR:-/tmp}
fi

work=$(mktemp -d "$tmp_parent/dw-pg.XXXXXX")
data="$work/data"
started=0

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ $started -eq 1 ]]; then
    as_db_user "$pg_bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
child=""

if [[ $(id -u) -eq 0 ]]; then chown "$db_user" "$work"; fi
chmod 700 "$work"
mkdir -p "$work/sock"
if [[ $(id -u) -eq 0 ]]; then chown "$db_user" "$work/sock"; fi

as_db_user "$pg_bin/initdb" -D "$data" -U "$db_user" --auth=trust --no-sync --encoding=UTF8 \
  --locale=C >"$work/initdb.log" 2>&1 || {
  echo "$prog: initdb failed:" >&2
  cat "$work/initdb.log" >&2
  exit 1
}

# A free port: ask the kernel when python3 is around, else guess; a race with another process
# taking it before the server binds is possible, so starting is retried on a new port.
pick_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
  else
    echo $((20000 + RANDOM % 40000))
  fi
}

for attempt in 1 2 3 4 5; do
  port=$(pick_port)
  # fsync off: the cluster is thrown away, durability buys nothing here.
  if as_db_user "$pg_bin/pg_ctl" -D "$data" -w -t 60 -l "$work/server.log" \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $work/sock -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
      start >/dev/null 2>&1; then
    started=1
    break
  fi
done
if [[ $started -ne 1 ]]; then
  echo "$prog: could not start PostgreSQL; server log:" >&2
  tail -n 30 "$work/server.log" >&2 || true
  exit 1
fi

# Trust authentication on loopback: any local OS user may connect as db_user over TCP.
as_db_user "$pg_bin/psql" -h 127.0.0.1 -p "$port" -U "$db_user" -d postgres -qAt -v ON_ERROR_STOP=1 \
  -c "CREATE DATABASE dw_test" >/dev/null 2>"$work/createdb.log" || {
  echo "$prog: could not create database dw_test:" >&2
  cat "$work/createdb.log" >&2
  exit 1
}

export DW_TEST_PG_URL="postgresql://$db_user@127.0.0.1:$port/dw_test"
# How a test restarts the server as a crash would (tests/faults/store_faults_test.cc): an immediate
# shutdown, then a start with the same options (pg_ctl keeps them in postmaster.opts). A checkpoint
# first: the crash recovery then replays only what was written since, not the WAL of every test
# before (which, on a loaded host late in the suite, outlasted pg_ctl's wait). The server's log is
# named for the test's failure message.
pg_ctl_as_user=""
if [[ $(id -u) -eq 0 ]]; then pg_ctl_as_user="runuser -u $db_user -- "; fi
export DW_TEST_PG_RESTART="$pg_ctl_as_user$pg_bin/psql -h 127.0.0.1 -p $port -U $db_user -d postgres -qAt -c CHECKPOINT >/dev/null 2>&1; $pg_ctl_as_user$pg_bin/pg_ctl -D $data -m immediate -w -t 120 -l $work/server.log restart >/dev/null 2>&1"
export DW_TEST_PG_LOG="$work/server.log"
echo "$prog: PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port; DW_TEST_PG_URL=$DW_TEST_PG_URL" >&2

# CMD runs in the background (keeping our stdin) so that a signal to this script is handled at
# once: it is passed on to CMD, and the server is still stopped.
forward() {
  if [[ -n "$child" ]]; then
    kill "-$1" "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  exit "$2"
}
trap 'forward INT 130' INT
trap 'forward TERM 143' TERM
set +e
"$@" <&0 &
child=$!
wait "$child"
rc=$?
set -e
exit "$rc"
