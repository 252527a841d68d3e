#!/usr/bin/env bash
# Replays collc's SimGrid time-independent traces under SMPI and compares the
# replayed time with the model's. The schedules are built for the IBM SP2
# (examples/machines/sp2.yaml: T_send = 46 + 0.035 m µs, t_hold = t_end) and
# replayed on examples/platforms/sp2-32.xml, whose links give every message
# 23 + 23 = 46 µs of latency and 1 / 0.035 = 28.571 MB/s, with SMPI's
# correction factors off and every send completing only once received
# (rendezvous, as a linear model's sender is busy until then). What remains
# is SMPI's 16-byte message envelope: 16 * 0.035 = 0.56 µs per transfer. A
# replay passes if it ends within 0.56 µs per transfer of the broadcast
# (P - 1 of them, at most all on the critical path) plus 1 µs (SMPI prints
# whole microseconds) of the model's makespan, never more than 1 µs early.
# A replay that fails or hangs fails the test. Skipped (77) without smpirun.
#   ti_replay.sh COLLC SOURCE_DIR      (either may be a relative path)
set -u
abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd)" "$(basename "$1")"); }
collc=$(abs "$1") src=$(cd "$2" && pwd) || { echo "no source dir '$2'"; exit 1; }
command -v smpirun >/dev/null || { echo "no smpirun: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
machine=$src/examples/machines/sp2.yaml
platform=$src/examples/platforms/sp2-32.xml
envelope=0.56 # µs per transfer: SMPI's 16 bytes at 0.035 µs/byte
fail=0
run() { # NAME RANKS BYTES ALGORITHM
  local name=$1 ranks=$2 bytes=$3 alg=$4
  local args=(--machine "$machine" --collective bcast --ranks "$ranks" --bytes "$bytes"
              --algorithm "$alg")
  mkdir -p "$tmp/$name"
  if ! "$collc" "${args[@]}" --emit ti-trace -o "$tmp/$name/trace"; then
    echo "FAIL $name: collc"; fail=1; return
  fi
  local model
  model=$("$collc" "${args[@]}" --emit json |
      sed -n 's/.*"makespan": *\([0-9.e+-]*\).*/\1/p' | tail -n 1)
  [ "$(wc -l <"$tmp/$name/trace")" -eq "$ranks" ] || { echo "FAIL $name: index"; fail=1; }
  for ((i = 0; i < ranks; i++)); do echo "node-$i"; done >"$tmp/$name/hosts"
  local out
  out=$(cd "$tmp/$name" && timeout 120 smpirun -np "$ranks" -platform "$platform" \
      -hostfile hosts -replay trace --log=root.thres:critical \
      --log=smpi_replay.thres:info --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
      --cfg=network/crosstraffic:0 --cfg=smpi/send-is-detached-thresh:0 2>&1)
  local rc=$?
  local t
  t=$(printf '%s\n' "$out" | sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' | tail -n 1)
  if [ $rc -ne 0 ] || [ -z "$t" ]; then
    echo "FAIL $name: smpirun -replay (status $rc)"; printf '%s\n' "$out" | tail -n 5
    fail=1; return
  fi
  local verdict
  verdict=$(awk -v t="$t" -v m="$model" -v n=$((ranks - 1)) -v e="$envelope" 'BEGIN {
      r = t * 1e6; d = r - m; tol = n * e + 1
      printf "model %.2f us, SMPI replay %.0f us, difference %+.2f us (allowed -1 .. +%.2f)", m, r, d, tol
      exit !(d >= -1 && d <= tol) }')
  local ok=$?
  echo "$name: $alg bcast, $ranks ranks, $bytes bytes on sp2: $verdict"
  [ $ok -eq 0 ] || { echo "FAIL $name: replayed and model times disagree"; fail=1; }
}
run opt-tree-16 16 65536 opt-tree
run binomial-16 16 65536 binomial
run sequential-8 8 1024 sequential
run chain-8 8 1024 chain
exit $fail
