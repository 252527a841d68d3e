#!/usr/bin/env bash
# Replays collc's SimGrid time-independent traces under SMPI: for a few
# schedules, `--emit ti-trace -o DIR/NAME` writes the index and one trace per
# rank, `smpirun -replay` runs them on a platform of examples/platforms/, and
# the replayed time is printed beside the model's makespan. A replay that
# fails, hangs or leaves a rank unfinished fails the test. Skipped (77)
# without smpirun.
#   ti_replay.sh COLLC SOURCE_DIR
set -u
collc=$1 src=$2
command -v smpirun >/dev/null || { echo "no smpirun: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
platform=$src/examples/platforms/cluster-256.xml
fail=0
run() { # NAME MACHINE RANKS BYTES ALGORITHM
  local name=$1 machine=$2 ranks=$3 bytes=$4 alg=$5
  mkdir -p "$tmp/$name"
  if ! "$collc" --machine "$src/examples/machines/$machine.yaml" --collective bcast \
      --ranks "$ranks" --bytes "$bytes" --algorithm "$alg" --emit ti-trace \
      -o "$tmp/$name/trace"; then
    echo "FAIL $name: collc"; fail=1; return
  fi
  local model
  model=$("$collc" --machine "$src/examples/machines/$machine.yaml" --collective bcast \
      --ranks "$ranks" --bytes "$bytes" --algorithm "$alg" --emit json |
      sed -n 's/.*"makespan": *\([0-9.e+-]*\).*/\1/p' | tail -n 1)
  [ "$(wc -l <"$tmp/$name/trace")" -eq "$ranks" ] || { echo "FAIL $name: index"; fail=1; }
  for ((i = 0; i < ranks; i++)); do echo "node-$i"; done >"$tmp/$name/hosts"
  local out
  out=$(cd "$tmp/$name" && timeout 120 smpirun -np "$ranks" -platform "$platform" \
      -hostfile hosts -replay trace --log=xbt_cfg.thres:warning \
      --log=smpi_config.thres:warning 2>&1)
  local rc=$?
  local t
  t=$(printf '%s\n' "$out" | sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' | tail -n 1)
  if [ $rc -ne 0 ] || [ -z "$t" ]; then
    echo "FAIL $name: smpirun -replay (status $rc)"; printf '%s\n' "$out" | tail -n 5
    fail=1; return
  fi
  local us
  us=$(awk -v t="$t" 'BEGIN { printf "%.1f", t * 1e6 }')
  echo "$name: $alg bcast, $ranks ranks, $bytes bytes: model ($machine) $model us," \
       "SMPI replay on $(basename "$platform") $us us"
}
run opt-tree-16 ibm-sp 16 65536 opt-tree
run binomial-16 ibm-sp 16 65536 binomial
run sequential-8 ibm-sp 8 1024 sequential
exit $fail
