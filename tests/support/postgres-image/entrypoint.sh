# First start: a cluster with POSTGRES_USER (password POSTGRES_PASSWORD, scram-sha-256 over
# TCP) and the database POSTGRES_DB; then the server, listening on every address.
set -eu
user="${POSTGRES_USER:-postgres}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)"
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > "$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" --auth-host=scram-sha-256 \
    --auth-local=trust >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  # the first start on a socket of its own: pg_isready says no until the database exists
  init="$(mktemp -d)"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=$init" -w -s start
  if [ "${POSTGRES_DB:-$user}" != postgres ]; then
    createdb -h "$init" -U "$user" "${POSTGRES_DB:-$user}"
  fi
  pg_ctl -D "$PGDATA" -m fast -w -s stop
  rmdir "$init"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c jit=off
