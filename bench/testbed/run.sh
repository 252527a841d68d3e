#!/usr/bin/env bash
# collc against Open MPI on the emulated cluster (scripts/testbed): for each
# topology and node count, a testbed is made, checked (TCP flows against the
# shaped rates), and every collective is timed in one launch per collective
# under collc's drop-in (with the machine the testbed wrote), Open MPI's
# default and every coll/tuned algorithm forced, and the code `collc --emit
# mpi` generates for the same machine (against the evaluator's prediction),
# all interleaved (bench/testbed/coll_bench.cpp). The testbed is removed after each
# configuration, whatever happens. Needs root and a build (build/bin/collc,
# build/lib/libcollc-mpi.so).
#
#   bench/testbed/run.sh [--out DIR] [--nodes "8 16"] [--topologies "switch tree"]
#       [--collectives "bcast allreduce allgather alltoall"] [--sizes "1024 ... 16777216"]
#       [--runs 5] [--rate 100mbit] [--per-leaf 4] [--uplinks 1] [--segments 0,16384,131072]
#       [--piece BYTES] [--probe] [--no-generated] [--build DIR]
#
# --piece: collc's runtime (the drop-in and the generated code) cuts every
# message in pieces of at most BYTES, all posted at once (COLLC_MAX_PIECE;
# 65000 keeps each below Open MPI's TCP eager limit).
#
# --probe: collc runs (drop-in, generated code, predictions) with the machine
# `collc-probe --topology discover --quick` measures across the testbed's
# nodes (machine-probed-*.yaml, its log probe-*.txt), not the one the
# testbed wrote from its own settings: what a user without a machine file
# does. The probed machine's `protocol: {max_piece}` then applies to the
# drop-in and the generated code alike.
#
# --build: the build directory whose bin/collc, bin/collc-probe and
# lib/libcollc-mpi.so run (default build).
#
# Results go to DIR (default bench/testbed/results): cells-<topology>-<N>.txt
# (coll_bench's lines), algorithms-*.txt (collc's choices), predicted-*.txt
# (the evaluator's makespans), measure-*.txt, machine-*.yaml and log-*.txt;
# bench/testbed/table.py DIR prints the tables.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
testbed=$root/scripts/testbed
out=$root/bench/testbed/results
nodes="8 16"
topologies="switch tree"
collectives="bcast allreduce allgather alltoall"
sizes="1024 4096 16384 65536 262144 1048576 4194304 16777216"
runs=5 rate=100mbit per_leaf=4 uplinks=1 segments=0,16384,131072 generated=1 piece=
probe=0 build=$root/build
inner=
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift ;;
    --nodes) nodes=$2; shift ;;
    --topologies) topologies=$2; shift ;;
    --collectives) collectives=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --runs) runs=$2; shift ;;
    --rate) rate=$2; shift ;;
    --per-leaf) per_leaf=$2; shift ;;
    --uplinks) uplinks=$2; shift ;;
    --segments) segments=$2; shift ;;
    --piece) piece=$2; shift ;;
    --no-generated) generated=0 ;;
    --probe) probe=1 ;;
    --build) build=$2; shift ;;
    --inner) inner=$2; shift ;; # (the part that runs inside one testbed)
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
build=$(cd "$build" && pwd)
collc=$build/bin/collc
lib=$build/lib/libcollc-mpi.so
for f in "$collc" "$lib" "$build/bin/collc-probe"; do
  [ -e "$f" ] || { echo "run.sh: $f is missing: build collc first (scripts/setup)" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$out/bin
csv() { echo "$1" | tr ' ' ,; }

if [ -z "$inner" ]; then
  mkdir -p "$bin"
  mpicxx -std=c++17 -O2 -Wall -Wextra "$root/bench/testbed/coll_bench.cpp" -o "$bin/coll_bench"
  mpicc -O2 -Wall -Wextra "$root/bench/testbed/exchange.c" -o "$bin/exchange"
  pass_on=(--collectives "$collectives" --sizes "$sizes" --runs "$runs" --segments "$segments"
           --rate "$rate" --per-leaf "$per_leaf")
  [ "$generated" = 1 ] || pass_on+=(--no-generated)
  [ -z "$piece" ] || pass_on+=(--piece "$piece")
  [ "$probe" = 0 ] || pass_on+=(--probe)
  pass_on+=(--build "$build")
  for topo in $topologies; do
    for n in $nodes; do
      shape=()
      [ "$topo" = tree ] && shape=(--per-leaf "$per_leaf" --uplinks "$uplinks")
      echo "== $topo, $n nodes, $rate links ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
      "$testbed" with --name ctbbench --nodes "$n" --topology "$topo" --node-rate "$rate" \
        "${shape[@]}" --machine "$out/machine-$topo-$n.yaml" -- \
        "$0" --out "$out" "${pass_on[@]}" --inner "$topo-$n"
    done
  done
  echo "done ($(date -u +%H:%M:%S)); tables: bench/testbed/table.py $out" >&2
  exit 0
fi

# Inside one testbed ($TESTBED_NAME, $TESTBED_MACHINE, $TESTBED_NODES).
tag=$inner n=$TESTBED_NODES machine=$out/machine-$tag.yaml
log=$out/log-$tag.txt
: > "$log"
cd "$out"
{
  echo "# TCP flows against the shaped links ($(cut -d' ' -f1-3 /proc/loadavg))"
  "$testbed" measure --shift 1
  case $tag in tree-*) "$testbed" measure ;; esac
  # The same under MPI: 4 MiB from every rank to the next (one flow per
  # link direction; the wire takes 4 MiB / (rate x payload share)), and on
  # the tree between the leaves (MASK: the nodes of a leaf).
  echo "# MPI over the links: 4 MiB, wire $(awk -v r="$rate" 'BEGIN { m = r ~ /gbit$/ ? 1e9 : r ~ /mbit$/ ? 1e6 : 1e3; sub(/[kmg]bit$/, "", r); printf "%.1f", 4194304 / (r * m / 8 * 1448 / 1514) * 1e3 }') ms per flow alone"
  "$testbed" run -- "$bin/exchange" 4194304
  case $tag in tree-*) "$testbed" run -- -x MASK="$per_leaf" "$bin/exchange" 4194304 ;; esac
} > "measure-$tag.txt" 2>> "$log"
cat "measure-$tag.txt" >&2

if [ "$probe" = 1 ]; then
  machine=$out/machine-probed-$tag.yaml
  "$testbed" run -- "$build/bin/collc-probe" --topology discover --quick -o "$machine" \
    > "probe-$tag.txt" 2>&1 || { cat "probe-$tag.txt" >&2; exit 1; }
  echo "# collc-probe: $(grep -m1 -E '^ *topology:' "$machine" | sed 's/^ *//')$(grep -q max_piece "$machine" && echo ", $(grep -m1 max_piece "$machine" | sed 's/^ *//')")" >&2
fi

common=(-x COLLC_MACHINE="$machine" --mca coll_tuned_use_dynamic_rules 1)
[ -z "$piece" ] || common+=(-x COLLC_MAX_PIECE="$piece")
preload=(-x LD_PRELOAD="$lib")
# The block of allgather and all-to-all: the size per rank over the ranks.
block() { if [ "$1" = allgather ] || [ "$1" = alltoall ]; then echo $(($2 / n)); else echo "$2"; fi; }

# collc's choices: one call per size with COLLC_VERBOSE (apart, so that no
# report is printed while the timed calls run).
: > "algorithms-$tag.txt"
for c in $collectives; do
  "$testbed" run -- "${common[@]}" "${preload[@]}" -x COLLC_VERBOSE=1 "$bin/coll_bench" \
    --collective "$c" --sizes "$(csv "$sizes")" --runs 1 --variants collc \
    > /dev/null 2> "verbose-$tag.txt" || { cat "verbose-$tag.txt" >&2; exit 1; }
  grep -E "^collc: $c '" "verbose-$tag.txt" | sort -u >> "algorithms-$tag.txt" || true
done
rm -f "verbose-$tag.txt"

# The evaluator's makespan of `auto` on the testbed's machine, and the code
# collc generates for it (one entry point per collective, a variant per
# size), compiled into the benchmark: it runs in the same launches.
: > "predicted-$tag.txt"
schedules=()
for c in $collectives; do
  for b in $sizes; do
    opts=(--collective "$c" --ranks "$n" --bytes "$(block "$c" "$b")")
    [ "$c" = bcast ] && opts+=(--root 0)
    [ "$c" = allreduce ] && opts+=(--datatype int32 --op sum)
    "$collc" --machine "$machine" "${opts[@]}" --emit json -o "s-$c-$b.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], sys.argv[3], d["algorithm"], d["makespan"])' \
      "s-$c-$b.json" "$c" "$b" >> "predicted-$tag.txt"
    schedules+=(--schedule "s-$c-$b.json")
  done
done
prog=$bin/coll_bench variants=collc,default,forced
if [ "$generated" = 1 ]; then
  "$collc" --machine "$machine" "${schedules[@]}" --emit mpi --mpi-name tb -o "gen-$tag.cpp"
  prog=$bin/coll_bench-$tag variants=collc,generated,default,forced
  mpicxx -std=c++17 -O2 -Wall -Wextra -DCOLLC_GENERATED -I"$root/runtime" \
    "$root/bench/testbed/coll_bench.cpp" "gen-$tag.cpp" -o "$prog"
fi

: > "cells-$tag.txt"
for c in $collectives; do
  echo "-- $c ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  "$testbed" run -- "${common[@]}" "${preload[@]}" "$prog" --collective "$c" \
    --sizes "$(csv "$sizes")" --runs "$runs" --segments "$segments" --variants "$variants" \
    >> "cells-$tag.txt" 2>> "$log"
done
rm -f s-*.json
