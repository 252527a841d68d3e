#!/usr/bin/env bash
# collc-probe under SimGrid's SMPI recovers the platform it runs on: on the
# 4x4 torus (examples/platforms/torus-4x4.xml, 16 ranks, --topology
# torus:4,4) and on 16 nodes of the flat cluster (cluster-256.xml, --topology
# cluster), the probed spec's links are the platform's (1 µs, 12.5 GB/s),
# its bands SMPI's default factors (within 5%), and it predicts every
# probed median within 5% (--max-error 5: the probe's own self-check).
# With --topology discover it finds a fat tree's leaves and uplinks (below).
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

# --topology discover: rounds of concurrent flows find a two-level fat tree's
# leaf switches and uplinks (16 nodes, 4 leaves of 4, 2 uplinks each: 2:1
# oversubscribed), and the flat cluster's one switch; a thin backbone, which
# slows every flow alike, is no tree of switches and stays one link a route.
discover() { # name platform expected-topology-line
  local name=$1 platform=$2 expected=$3
  if ! smpirun -np 16 -platform "$platform" -hostfile hosts \
      --log=root.thres:critical "$probe" --topology discover --quick \
      -o "$name.yaml" 2> "$name.err"; then
    bad "$name: exit status $?"; cat "$name.err"; return
  fi
  grep "topology:" "$name.err"
  if grep -qxF "$expected" "$name.yaml"; then ok; else
    bad "$name: expected '$expected', the spec has '$(grep '^topology:' "$name.yaml")'"
  fi
}
cluster16() { # extra attributes of a 16-node cluster
  printf '%s\n' "<?xml version='1.0'?>" \
    '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">' \
    '<platform version="4.1">' \
    "  <cluster id=\"c\" prefix=\"node-\" radical=\"0-15\" suffix=\"\" speed=\"1Gf\" bw=\"1.25GBps\" lat=\"2us\" $1/>" \
    '</platform>'
}
cluster16 'topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,1"' > fat-tree.xml
cluster16 'bb_bw="2GBps" bb_lat="0us"' > backbone.xml
discover discover-fat-tree fat-tree.xml \
  "topology: {kind: fat-tree, levels: 2, down: [4, 4], up: [1, 2], parallel: [1, 1]}"
discover discover-cluster "$src/examples/platforms/cluster-256.xml" \
  "topology: {kind: cluster, nodes: 16, backbone: false}"
discover discover-backbone backbone.xml "topology: {kind: full, nodes: 16}"
grep -q "flows between any two nodes were slowed" discover-backbone.err && ok ||
  bad "discover-backbone: the probe did not say why it kept one link a route"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
