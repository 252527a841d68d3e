#!/usr/bin/env bash
# collc-probe under SimGrid's SMPI recovers the platform it runs on: on the
# 4x4 torus (examples/platforms/torus-4x4.xml, 16 ranks, --topology
# torus:4,4) and on 16 nodes of the flat cluster (cluster-256.xml, --topology
# cluster), the probed spec's links are the platform's (1 µs, 12.5 GB/s),
# its bands SMPI's default factors (within 5%), and it predicts every
# probed median within 5% (--max-error 5: the probe's own self-check).
#
#   probe_smpi.sh <collc-probe-smpi> <srcdir> <workdir>
set -uo pipefail
probe=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"
for i in $(seq 0 15); do echo "node-$i"; done > hosts
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

run() { # name platform topology
  local name=$1 platform=$2 topology=$3
  if smpirun -np 16 -platform "$src/examples/platforms/$platform" -hostfile hosts \
      --log=root.thres:critical "$probe" --topology "$topology" --max-error 5 \
      -o "$name.yaml" 2> "$name.err"; then ok; else
    bad "$name: exit status $?"; cat "$name.err"; return
  fi
  echo "== $name ($platform, --topology $topology)"
  sed -n '/^network:/,/^  nodes:/p' "$name.yaml"
  if python3 "$src/tests/tools/probe_check.py" "$name.yaml" --max-error 5 \
      --latency 1 --bandwidth 12500 --smpi-factors --tolerance 5; then ok; else
    bad "$name: the probed spec is not the platform's"
  fi
}
run torus torus-4x4.xml torus:4,4
run cluster cluster-256.xml cluster
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
