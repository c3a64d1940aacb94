#!/bin/sh
# Three toolmend replicas for examples/scale_out/nginx.conf, each with its own request log
# (`toolmend report 'requests-*.jsonl'` reads them together). Stop them with Ctrl-C.
set -e
trap 'kill 0' INT TERM
for port in 4001 4002 4003; do
  toolmend serve --config "${TOOLMEND_CONFIG:-toolmend.toml}" --port "$port" \
    --log-file "requests-$port.jsonl" &
done
wait
