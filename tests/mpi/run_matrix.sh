#!/usr/bin/env bash
# The MPI test matrix: generated schedules of every collective, compiled with
# -Wall -Wextra -Werror against one MPI and run by collc-mpi-check (one launch
# per communicator size, every algorithm, size and root inside it).
#
#   run_matrix.sh generate <collc> <collc-handbuilt> <srcdir> <gendir> <P...>
#   run_matrix.sh openmpi|mpich|smpi <srcdir> <gendir> <workdir> <P...>
#
# `generate` writes <gendir>/{opt_tree,binomial,sequential,chain,hand,relay}.cpp:
# broadcasts built by collc for bytes {0, 1, 1000, 1 MiB + 3} and roots
# {0, 1, P-1} on the PC-cluster model (one variant each, exact sizes), and
# hand-built schedules of the other collectives (any size).
set -euo pipefail
mode=$1
shift

roots() { # distinct roots {0, 1, P-1} of P ranks
  local p=$1
  { echo 0; [ "$p" -gt 1 ] && echo 1; echo $((p - 1)); } | sort -un
}

if [ "$mode" = generate ]; then
  collc=$1 handbuilt=$2 src=$3 gen=$4
  shift 4
  rm -rf "$gen"
  mkdir -p "$gen/json"
  # The PC-cluster model, on enough nodes for every size tested.
  sed "s/nodes: 16/nodes: 4096/" "$src/examples/machines/pc-cluster.yaml" > "$gen/machine.yaml"
  for p in "$@"; do
    for r in $(roots "$p"); do
      for alg in opt-tree binomial sequential chain; do
        for b in 0 1 1000 1048579; do
          "$collc" --machine "$gen/machine.yaml" --collective bcast --ranks "$p" --root "$r" \
            --bytes "$b" --algorithm "$alg" --emit json -o "$gen/json/$alg-$p-$r-$b.json"
        done
      done
      # Hand-built schedules up to 64 ranks (the all-to-all tables grow as P^2).
      [ "$p" -le 64 ] && "$handbuilt" "$p" "$r" "$gen/json"
    done
  done
  for alg in opt-tree binomial sequential chain; do
    "$collc" $(printf -- "--schedule %s " "$gen"/json/$alg-*.json) --machine "$gen/machine.yaml" \
      --emit mpi --mpi-name "${alg//-/_}" -o "$gen/${alg//-/_}.cpp"
  done
  hand=$(ls "$gen"/json/*-hand-*.json | grep -v hand-relay)
  "$collc" $(printf -- "--schedule %s " $hand) --emit mpi --mpi-name hand --mpi-sizes any \
    -o "$gen/hand.cpp"
  "$collc" $(printf -- "--schedule %s " "$gen"/json/*-hand-relay-*.json) --emit mpi \
    --mpi-name relay --mpi-sizes any -o "$gen/relay.cpp"
  "$collc" $(printf -- "--schedule %s " $hand) --emit mpi-header --mpi-name hand \
    -o "$gen/hand.h"
  ls -l "$gen"/*.cpp | awk '{print "generated", $NF, $5, "bytes"}'
  exit 0
fi

src=$1 gen=$2 work=$3
shift 3
rm -rf "$work"
mkdir -p "$work"
flags=(-std=c++17 -O2 -Wall -Wextra -Werror -I"$src/runtime")
case $mode in
  openmpi) cxx=mpicxx.openmpi; run=(mpirun.openmpi --allow-run-as-root --oversubscribe -np) ;;
  mpich) cxx=mpicxx.mpich; run=(mpirun.mpich -np) ;;
  smpi)
    cxx=smpicxx
    # SMPI ranks share one process: each rank's buffers are capped.
    for p in "$@"; do
      for i in $(seq 0 $((p - 1))); do echo "node-$i"; done > "$work/hosts-$p"
    done
    ;;
  *) echo "run_matrix.sh: unknown mode $mode" >&2; exit 2 ;;
esac
command -v "$cxx" >/dev/null || { echo "run_matrix.sh: $cxx not found" >&2; exit 1; }
objs=()
for f in opt_tree binomial sequential chain hand relay; do
  "$cxx" "${flags[@]}" -c "$gen/$f.cpp" -o "$work/$f.o"
  objs+=("$work/$f.o")
done
"$cxx" "${flags[@]}" "$src/tests/mpi/check.cpp" "${objs[@]}" -o "$work/check"
for p in "$@"; do
  echo "== $mode, $p ranks"
  if [ "$mode" = smpi ]; then
    cap=1048579
    [ "$p" -gt 16 ] && cap=65539
    smpirun -np "$p" -platform "$src/examples/platforms/cluster-256.xml" \
      -hostfile "$work/hosts-$p" --log=root.thres:critical --cfg=smpi/display-timing:no \
      "$work/check" --cap "$cap" --no-timing $([ "$p" -gt 64 ] && echo --bcast-only)
  else
    timeout 300 "${run[@]}" "$p" "$work/check"
  fi
done
