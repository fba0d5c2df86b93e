#!/bin/sh
# The official image's first start, reduced to what docker-compose.yml asks of it: a cluster in
# $PGDATA owned by POSTGRES_USER (password auth over TCP), and POSTGRES_DB in it; then the server.
set -eu
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password_file=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" >"$password_file"
  initdb --pgdata="$PGDATA" --username="$user" --pwfile="$password_file" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$password_file"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  # As the official image: the first start listens on its socket only while it creates the database.
  pg_ctl --pgdata="$PGDATA" --options="-c listen_addresses=''" --wait start >/dev/null
  if [ "$database" != postgres ]; then createdb --username="$user" "$database"; fi
  pg_ctl --pgdata="$PGDATA" --mode=fast --wait stop >/dev/null
  echo "postgres-entrypoint: initialised $PGDATA for $user, database $database"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
