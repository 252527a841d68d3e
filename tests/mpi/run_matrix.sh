#!/usr/bin/env bash
# The MPI test matrix: generated schedules of every collective, compiled with
# -Wall -Wextra -Werror against one MPI and run by collc-mpi-check (one launch
# per communicator size, every algorithm, size and root inside it).
#
#   run_matrix.sh generate <collc> <collc-handbuilt> <srcdir> <gendir> <P...>
#   run_matrix.sh openmpi|mpich|smpi <srcdir> <gendir> <workdir> <P...>
#
# `generate` builds with collc, on the PC-cluster model, every builder of
# every collective (not the star, mesh, torus and barrier ones, tested
# elsewhere) for each P, roots {0, 1, P-1} where the collective has a root,
# and the sizes tests/mpi/check.cpp calls them with (one variant each, exact
# sizes):
#   bcast (opt-tree, binomial, sequential, chain, greedy, edge-disjoint,
#     k-segment, pipeline, two-path-pipeline, scatter-allgather,
#     kary-pipeline, knomial, scatter-rdb-allgather, bine, knomial-fanout,
#     lockstep-scatter-allgather; and ring-pipeline, spanning-trees, scatter-ring,
#     scatter-trees on a torus of P nodes, <gendir>/torus-P.yaml, up to 64
#     ranks),
#     gather/scatter (linear, binomial, bine), alltoall (pairwise, bruck),
#     allgather (ring, bruck, dimension-rings, bine):
#     bytes {0, 1, 1000, 1 MiB + 3} per block;
#   reduce/allreduce (binomial, reduce-scatter-allgather,
#     lockstep-reduce-scatter-allgather, bine), allreduce
#     (nearest-halving, nearest-doubling, dimension-rings, swing), scan/exscan
#     (linear, pipelined, brent-kung, rootp): {0, 1, 250, 262145} elements of
#     4 and of 8 bytes (reduce-scatter-allgather, nearest-halving: the counts
#     of at least one element per segment; dimension-rings: per rank; segments
#     may differ by one element);
#   reduce/allreduce binomial for a non-commutative operator (1000 bytes);
#   the one-shot algorithms on the torus of P nodes (a machine with a
#     network, where each phase is one step; up to 64 ranks): direct bcast,
#     gather, scatter, alltoall, allgather (the sizes above), direct and
#     reduce-scatter-direct reduce/allreduce (the element counts above, and
#     1000 bytes with a non-commutative operator: direct_nc,
#     reduce_scatter_direct_nc), grid-direct, grid-direct-3d (P with
#     three factors), nonblocking-ring and
#     neighbor-exchange allgather, two-level reduce/allreduce and
#     double-buffered reduce; node-direct and node-leaders allgather on a
#     torus of ceil(P/2) nodes with two ranks per node
#     (<gendir>/torus2-P.yaml).
# Beyond 16 ranks (SMPI) only sizes whose per-rank buffers stay within
# 65539 bytes are built, as check.cpp --cap 65539 runs there, and beyond 64
# only the broadcasts. One file per
# algorithm name, <gendir>/<name>.cpp, with an entry point per collective
# (collc_bcast_binomial, collc_reduce_binomial, ...), plus the hand-built
# schedules of tests/mpi/handbuilt.cpp (hand.cpp, relay.cpp; any size).
set -euo pipefail
mode=$1
shift

roots() { # distinct roots {0, 1, P-1} of P ranks
  local p=$1
  { echo 0; [ "$p" -gt 1 ] && echo 1; echo $((p - 1)); } | sort -un
}

# The algorithm files (generate writes them, the other modes compile them).
algs=(opt_tree binomial sequential chain greedy edge_disjoint k_segment pipeline
  two_path_pipeline scatter_allgather ring_pipeline spanning_trees scatter_ring scatter_trees
  kary_pipeline knomial scatter_rdb_allgather reduce_scatter_allgather linear pipelined
  brent_kung rootp pairwise bruck ring binomial_nc nearest_halving nearest_doubling
  dimension_rings direct reduce_scatter_direct direct_nc reduce_scatter_direct_nc node_direct grid_direct
  bine swing two_level double_buffered nonblocking_ring neighbor_exchange grid_direct_3d
  knomial_fanout lockstep_scatter_allgather lockstep_reduce_scatter_allgather node_leaders)

if [ "$mode" = generate ]; then
  collc=$1 handbuilt=$2 src=$3 gen=$4
  shift 4
  rm -rf "$gen"
  mkdir -p "$gen/json"
  # The PC-cluster model, on enough nodes for every size tested.
  sed "s/nodes: 16/nodes: 4096/" "$src/examples/machines/pc-cluster.yaml" > "$gen/machine.yaml"
  # Non-commutative binomial reduce and allreduce (the request file alone
  # says commutative: false); 1000 bytes, 125 pairs of ints in check.cpp.
  for c in reduce allreduce; do
    for alg in binomial direct reduce-scatter-direct; do
      suffix=${alg/#binomial/}
      printf 'collective: %s\nranks: 2\nbytes: 1000\ndatatype: int64\ncommutative: false\nalgorithm: %s\n' \
        "$c" "$alg" > "$gen/nc-$c${suffix:+-$suffix}.yaml"
    done
  done
  declare -A seen
  jobs=$gen/jobs
  : > "$jobs"
  # job <file name> <collective> <P> <root> <bytes> <collc options...>
  job() {
    local name=$1 coll=$2 p=$3 r=$4 b=$5
    shift 5
    # Beyond 64 ranks (SMPI) only the broadcasts run (check.cpp --bcast-only).
    [ "$p" -gt 64 ] && [ "$coll" != bcast ] && return 0
    local key="$name $coll $p $r $b"
    [ -n "${seen[$key]:-}" ] && return 0 # one schedule per (size, root, bytes)
    seen[$key]=1
    echo "-o $gen/json/$name-$coll-$p-$r-$b.json --collective $coll --ranks $p --root $r --bytes $b $*" >> "$jobs"
  }
  # The broadcasts laid onto a torus run on a torus of P nodes (two
  # dimensions where P factors; 1 µs, 12.5 GB/s links).
  torus_jobs=$gen/jobs-torus
  : > "$torus_jobs"
  torus() { # torus <P>: writes <gendir>/torus-P.yaml
    local p=$1 a=1 i
    for ((i = 2; i * i <= p; i++)); do [ $((p % i)) = 0 ] && a=$i; done
    local dims="[$p]"
    [ "$a" -gt 1 ] && dims="[$a, $((p / a))]"
    printf 'name: torus-%s\ntopology:\n  kind: torus\n  dims: %s\nnetwork:\n  links:\n    - {class: link, latency: 1, bandwidth: 12500}\n' \
      "$p" "$dims" > "$gen/torus-$p.yaml"
  }
  # tjob <file name> <collective> <P> <root> <bytes> <collc options...>: a
  # job on the torus of P nodes (up to 64 ranks).
  tjob() {
    local name=$1 coll=$2 p=$3 r=$4 b=$5
    shift 5
    [ "$p" -gt 64 ] && return 0
    local key="$name $coll $p $r $b"
    [ -n "${seen[$key]:-}" ] && return 0
    seen[$key]=1
    [ -f "$gen/torus-$p.yaml" ] || torus "$p"
    echo "--machine $gen/torus-$p.yaml -o $gen/json/$name-$coll-$p-$r-$b.json --collective $coll --ranks $p --root $r --bytes $b $*" >> "$torus_jobs"
  }
  torus2() { # torus2 <P>: <gendir>/torus2-P.yaml, ceil(P/2) nodes of two ranks
    local p=$1
    printf 'name: torus2-%s\ntopology:\n  kind: torus\n  dims: [%s]\nnetwork:\n  links:\n    - {class: link, latency: 1, bandwidth: 12500}\n  nodes: {processes: 2, placement: block, intra: {latency: 0, bandwidth: 12500, fatpipe: true}}\n' \
      "$p" $(((p + 1) / 2)) > "$gen/torus2-$p.yaml"
  }
  for p in "$@"; do
    cap=$((1 << 62))
    [ "$p" -gt 16 ] && cap=65539
    core=1
    while [ $((core * 2)) -le "$p" ]; do core=$((core * 2)); done
    for r in $(roots "$p"); do
      for b in 0 1 1000 1048579; do
        if [ "$b" -le "$cap" ]; then
          for alg in opt-tree binomial sequential chain greedy edge-disjoint k-segment pipeline \
            two-path-pipeline scatter-allgather kary-pipeline knomial scatter-rdb-allgather bine \
            knomial-fanout lockstep-scatter-allgather; do
            job "${alg//-/_}" bcast "$p" "$r" "$b" --algorithm "$alg"
          done
          # (Up to 64 ranks: check.cpp skips them beyond.)
          [ "$p" -le 64 ] || continue
          [ -f "$gen/torus-$p.yaml" ] || torus "$p"
          for alg in ring-pipeline spanning-trees scatter-ring scatter-trees; do
            echo "--machine $gen/torus-$p.yaml -o $gen/json/${alg//-/_}-bcast-$p-$r-$b.json --collective bcast --ranks $p --root $r --bytes $b --algorithm $alg" >> "$torus_jobs"
          done
          tjob direct bcast "$p" "$r" "$b" --algorithm direct
        fi
        if [ $((b * p)) -le "$cap" ]; then
          for alg in linear binomial bine; do
            for c in gather scatter; do job "$alg" "$c" "$p" "$r" "$b" --algorithm "$alg"; done
          done
          for c in gather scatter; do tjob direct "$c" "$p" "$r" "$b" --algorithm direct; done
          if [ "$r" = 0 ]; then
            tjob direct alltoall "$p" 0 "$b" --algorithm direct
            tjob direct allgather "$p" 0 "$b" --algorithm direct
            tjob grid_direct allgather "$p" 0 "$b" --algorithm grid-direct
            # The ring that sends ahead and the exchange that posts in
            # lockstep (their schedules' posting options).
            tjob nonblocking_ring allgather "$p" 0 "$b" --algorithm nonblocking-ring
            # (grid-direct-3d: P with a factoring a x b x c, every factor
            # at least 2; neighbor-exchange pairs ranks off: even P alone.)
            if [ "$p" -ge 8 ] && "$collc" --machine "$gen/torus-$p.yaml" --collective allgather \
              --ranks "$p" --bytes 0 --algorithm grid-direct-3d --emit summary > /dev/null 2>&1; then
              tjob grid_direct_3d allgather "$p" 0 "$b" --algorithm grid-direct-3d
            fi
            [ $((p % 2)) = 0 ] &&
              tjob neighbor_exchange allgather "$p" 0 "$b" --algorithm neighbor-exchange
            if [ "$p" -le 64 ]; then
              [ -f "$gen/torus2-$p.yaml" ] || torus2 "$p"
              echo "--machine $gen/torus2-$p.yaml -o $gen/json/node_direct-allgather-$p-0-$b.json --collective allgather --ranks $p --root 0 --bytes $b --algorithm node-direct" >> "$torus_jobs"
              echo "--machine $gen/torus2-$p.yaml -o $gen/json/node_leaders-allgather-$p-0-$b.json --collective allgather --ranks $p --root 0 --bytes $b --algorithm node-leaders" >> "$torus_jobs"
            fi
          fi
          [ "$r" = 0 ] && for alg in pairwise bruck; do
            job "$alg" alltoall "$p" 0 "$b" --algorithm "$alg"
          done
          [ "$r" = 0 ] && for alg in ring bruck dimension-rings bine; do
            job "${alg//-/_}" allgather "$p" 0 "$b" --algorithm "$alg"
          done
        fi
      done
      for n in 0 1 250 262145; do
        for size in 4 8; do
          dt=int$((size * 8))
          b=$((n * size))
          if [ "$b" -le "$cap" ]; then
            for c in reduce allreduce; do
              [ "$c" = allreduce ] && [ "$r" != 0 ] && continue
              job binomial "$c" "$p" "$r" "$b" --algorithm binomial --datatype "$dt"
              job bine "$c" "$p" "$r" "$b" --algorithm bine --datatype "$dt"
              for alg in direct reduce-scatter-direct two-level; do
                tjob "${alg//-/_}" "$c" "$p" "$r" "$b" --algorithm "$alg" --datatype "$dt"
              done
            done
            # A reduce whose parents receive into two staging areas.
            tjob double_buffered reduce "$p" "$r" "$b" --algorithm double-buffered --datatype "$dt"
            if [ "$r" = 0 ]; then
              for c in scan exscan; do
                for alg in linear pipelined brent-kung rootp; do
                  job "${alg//-/_}" "$c" "$p" 0 "$b" --algorithm "$alg" --datatype "$dt"
                done
              done
            fi
          fi
          if [ "$b" -le "$cap" ] && [ "$r" = 0 ]; then
            job nearest_doubling allreduce "$p" 0 "$b" --algorithm nearest-doubling --datatype "$dt"
            job swing allreduce "$p" 0 "$b" --algorithm swing --datatype "$dt"
            # dimension-rings: one element per rank at least.
            if [ "$n" = 0 ] || [ "$n" -ge "$p" ]; then
              job dimension_rings allreduce "$p" 0 "$b" --algorithm dimension-rings --datatype "$dt"
            fi
          fi
          # reduce-scatter-allgather: one element per segment at least.
          if [ "$b" -le "$cap" ] && { [ "$n" = 0 ] || [ "$n" -ge "$core" ]; }; then
            [ "$r" = 0 ] && job nearest_halving allreduce "$p" 0 "$b" --algorithm nearest-halving \
              --datatype "$dt"
            for c in reduce allreduce; do
              [ "$c" = allreduce ] && [ "$r" != 0 ] && continue
              job reduce_scatter_allgather "$c" "$p" "$r" "$b" --algorithm reduce-scatter-allgather \
                --datatype "$dt"
              job lockstep_reduce_scatter_allgather "$c" "$p" "$r" "$b" \
                --algorithm lockstep-reduce-scatter-allgather --datatype "$dt"
            done
          fi
        done
      done
      for c in reduce allreduce; do
        [ "$c" = allreduce ] && [ "$r" != 0 ] && continue
        job binomial_nc "$c" "$p" "$r" 1000 --request "$gen/nc-$c.yaml"
        for alg in direct reduce-scatter-direct; do
          tjob "${alg//-/_}_nc" "$c" "$p" "$r" 1000 --request "$gen/nc-$c-$alg.yaml"
        done
      done
      # Hand-built schedules up to 64 ranks (the all-to-all tables grow as P^2).
      [ "$p" -le 64 ] && "$handbuilt" "$p" "$r" "$gen/json"
    done
  done
  xargs -P 2 -L 1 "$collc" --machine "$gen/machine.yaml" --emit json < "$jobs"
  xargs -P 2 -L 1 "$collc" --emit json < "$torus_jobs"
  for alg in "${algs[@]}"; do
    # The one-shot schedules were built on the tori (a rank sends many
    # messages in a step): their data flow is verified without a machine.
    machine=(--machine "$gen/machine.yaml")
    case $alg in
      direct | reduce_scatter_direct | node_direct | node_leaders | grid_direct | grid_direct_3d | two_level | double_buffered | \
        nonblocking_ring | neighbor_exchange | *_nc) [ "$alg" = binomial_nc ] || machine=() ;;
    esac
    "$collc" $(printf -- "--schedule %s " "$gen"/json/$alg-*.json) "${machine[@]}" \
      --emit mpi --mpi-name "$alg" -o "$gen/$alg.cpp"
  done
  hand=$(ls "$gen"/json/*-hand-*.json | grep -v hand-relay)
  "$collc" $(printf -- "--schedule %s " $hand) --emit mpi --mpi-name hand --mpi-sizes any \
    -o "$gen/hand.cpp"
  "$collc" $(printf -- "--schedule %s " "$gen"/json/*-hand-relay-*.json) --emit mpi \
    --mpi-name relay --mpi-sizes any -o "$gen/relay.cpp"
  "$collc" $(printf -- "--schedule %s " $hand) --emit mpi-header --mpi-name hand \
    -o "$gen/hand.h"
  echo "generated $(cat "$jobs" "$torus_jobs" | wc -l) schedules"
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
# The generated files compile two at a time.
printf '%s\n' "${algs[@]}" hand relay |
  xargs -P 2 -I{} "$cxx" "${flags[@]}" -c "$gen/{}.cpp" -o "$work/{}.o"
objs=()
for f in "${algs[@]}" hand relay; do objs+=("$work/$f.o"); done
"$cxx" "${flags[@]}" "$src/tests/mpi/check.cpp" "${objs[@]}" -o "$work/check"
echo "compiled in ${SECONDS} s"
for p in "$@"; do
  echo "== $mode, $p ranks"
  start=$SECONDS
  opts=()
  case $mode in
    smpi)
      # SMPI ranks share one process: each rank's buffers are capped; the
      # builders' reductions run with three operator/type pairs at 64 ranks
      # and only the broadcasts at 256 (the simulation's wall time grows with
      # ranks x messages).
      cap=1048579
      [ "$p" -gt 16 ] && cap=65539
    core=1
    while [ $((core * 2)) -le "$p" ]; do core=$((core * 2)); done
      opts=(--cap "$cap" --no-timing)
      [ "$p" -gt 16 ] && opts+=(--quick)
      [ "$p" -gt 64 ] && opts+=(--bcast-only)
      smpirun -np "$p" -platform "$src/examples/platforms/cluster-256.xml" \
        -hostfile "$work/hosts-$p" --log=root.thres:critical --cfg=smpi/display-timing:no \
        "$work/check" "${opts[@]}"
      ;;
    mpich)
      # MPICH spins when oversubscribed, and every step of a schedule costs
      # time slices: from 3 ranks on, three operator/type pairs for the
      # builders' reductions, from 8 on messages up to 64 KiB.
      [ "$p" -ge 3 ] && opts=(--quick)
      [ "$p" -ge 8 ] && opts+=(--cap 65539)
      timeout 600 "${run[@]}" "$p" "$work/check" "${opts[@]}"
      ;;
    *) timeout 300 "${run[@]}" "$p" "$work/check" ;;
  esac
  echo "   $((SECONDS - start)) s"
done
