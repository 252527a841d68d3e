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
  if ! timeout $((limit + 30)) "$collc" "$@" >/dev/null 2>&1; then
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
# --emit select under a network, over the default 1 B .. 1 MiB: a few seconds
# of CPU each (bench-select has the figures). Before the selection left alone
# the shape changes of a winner no rival came near, the broadcast took about
# a minute of CPU time and the exclusive scan on the SP2 platform minutes.
run 120 --machine examples/platforms/torus-4x4.xml --collective bcast --ranks 16 \
  --emit select
run 60 --machine examples/platforms/sp2-32.xml --collective exscan --ranks 16 \
  --op sum --datatype int32 --emit select
exit $fail
