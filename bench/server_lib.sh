# Starting and stopping `tidepool serve` for the bench scripts (server_bench.sh,
# server_soak.sh), which source this file. They set $bin (the tidepool binary),
# $dir (the data directory) and $work (a scratch directory for the log) first,
# and call stop_server from their EXIT trap.
server_pid=""
stop_server() {
  if [ -n "$server_pid" ]; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# start_server ARGS...: a server over $dir on $port, ready within 60 s.
start_server() {
  port=$(free_port)
  "$bin" serve -D "$dir" --port "$port" --listen 127.0.0.1 "$@" >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 600); do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then
      return
    fi
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.1
  done
  echo "the server did not accept connections in 60 s" >&2
  exit 1
}
