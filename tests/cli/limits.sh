#!/usr/bin/env bash
# Inputs of a few bytes whose work used to grow with a number they contain:
# each must finish within seconds (the cost pass was quadratic in segments).
set -u
collc=$1 src=$2
cd "$src" || exit 1
fail=0
run() { # seconds, then the command line
  local limit=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  if ! timeout 60 "$collc" "$@" >/dev/null 2>&1; then
    echo "FAIL (exit status): collc $*"
    fail=1
    return
  fi
  t1=$(date +%s.%N)
  if awk -v a="$t0" -v b="$t1" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
    echo "FAIL (slower than ${limit} s): collc $*"
    fail=1
  fi
}
# 32768 segments on 4 ranks: 98301 transfers (99 s before the cost pass
# indexed receives by chunk).
run 20 --machine examples/machines/pc-cluster.yaml --collective bcast --ranks 4 \
  --bytes 1048576 --algorithm pipeline --segments 32768
# A multi-port machine: the same pipeline, verified with two ports.
printf 'name: two-ports\nports: 2\nmodel:\n  kind: linear\n  t_s: 176\n  per_byte: 0.105\n' \
  >"${TMPDIR:-/tmp}/collc-limits-$$.yaml"
run 20 --machine "${TMPDIR:-/tmp}/collc-limits-$$.yaml" --collective scan --ranks 64 \
  --bytes 1048576 --algorithm pipelined --segments 4096
rm -f "${TMPDIR:-/tmp}/collc-limits-$$.yaml"
exit $fail
