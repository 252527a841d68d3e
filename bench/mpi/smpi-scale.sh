#!/usr/bin/env bash
# auto against SMPI's built-ins at thousands of ranks (issue 26: "SMPI
# confirms auto is no slower than the fastest SMPI built-in on a torus and a
# fat tree of that size"): on a 2-D torus and a 2:1 fat tree of the bundled
# kinds (bench/scale_platform.sh, 12.5 GB/s and 1 us links; the shapes of
# bench/scale.sh), the makespan of one call of auto's schedule (its generated
# MPI code) and of each SMPI built-in, every rank starting at one agreed
# moment (bench/mpi/osu.h's makespan). Prints one row per platform and
# algorithm: the simulated µs, the simulator's CPU seconds and peak memory
# (MB), "-" past the CPU limit, "x" when the launch failed (its message on
# standard error); then per platform auto's time over the fastest
# built-in's.
#
# What makes thousands of ranks fit in one simulator: buffers of 8 KiB and
# more folded onto shared pages (smpi/auto-shared-malloc-thresh), so no
# call's data is checked (--no-check: SMPI's times do not depend on it; the
# same generated code is checked under SMPI at the arena's sizes), each
# rank's globals privatized by mmap (not a copy of the program per rank) and
# 512 KiB stacks.
#
# usage: bench/mpi/smpi-scale.sh <collc> [ranks] [collective] [bytes]
#   ranks: 1024, 4096 (default), 65536; collective: allreduce (default),
#   bcast, allgather or reduce; bytes: 1048576 by default.
# Environment: SMPI_LIMIT (CPU seconds a launch may take, default 600),
#   SMPI_ALGS (a space-separated subset of SMPI's algorithms; default all of
#   them), SCALE_MEMORY_KB (virtual memory a launch may take, default
#   16000000), SCALE_PLATFORMS (torus, fat-tree or both: default
#   "torus fat-tree").
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
collc=${1:?usage: smpi-scale.sh <collc> [ranks] [collective] [bytes]}
P=${2:-4096}
coll=${3:-allreduce}
bytes=${4:-1048576}
cpu_secs=${SMPI_LIMIT:-600}
vmem_kb=${SCALE_MEMORY_KB:-16000000}
read -ra plats <<< "${SCALE_PLATFORMS:-torus fat-tree}"
case $P in
  1024) T="32,32" F="2;32,32;1,8;1,2" ;;
  4096) T="64,64" F="2;64,64;1,16;1,2" ;;
  65536) T="256,256" F="2;256,256;1,64;1,2" ;;
  *) echo "smpi-scale: error: ranks: expected 1024, 4096 or 65536, got '$P'" >&2; exit 1 ;;
esac
opts=(--collective "$coll" --ranks "$P")
case $coll in
  allreduce) opts+=(--op sum --datatype int32) driver=osu_allreduce.cpp ;;
  reduce) opts+=(--root 0 --op sum --datatype int32) driver=osu_reduce.cpp ;;
  bcast) opts+=(--root 0) driver=osu_bcast.cpp ;;
  allgather) driver=osu_allgather.cpp ;;
  *) echo "smpi-scale: error: collective: expected allreduce, reduce, bcast or allgather, got '$coll'" >&2; exit 1 ;;
esac
[[ $bytes =~ ^[1-9][0-9]*$ ]] || { echo "smpi-scale: error: bytes: expected a count, got '$bytes'" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/bench/mpi/arena-lib.sh"
# shellcheck source=bench/scale_platform.sh
. "$root/bench/scale_platform.sh"
for ((i = 0; i < P; ++i)); do echo "node-$i"; done > "$work/hosts"
scale=(--cfg=smpi/privatization:mmap --cfg=contexts/stack-size:512
       --cfg=smpi/auto-shared-malloc-thresh:8192)

# launch <label> <args...>: one SMPI launch under the limits; prints its row
# and keeps the time in $work/times-$name.
launch() {
  local label=$1 v rc=0 u s m
  shift
  (
    ulimit -v "$vmem_kb"
    ulimit -St "$cpu_secs" && ulimit -Ht $((cpu_secs + 10))
    exec /usr/bin/time -f "%U %S %M" -o "$work/time" timeout $((cpu_secs * 4)) \
      smpirun -np "$P" -platform "$plat" -hostfile "$work/hosts" \
      --log=root.thres:critical --cfg=smpi/display-timing:no \
      --cfg=smpi/simulate-computation:no "${scale[@]}" "$@"
  ) > "$work/out" 2> "$work/err" || rc=$?
  v=$(awk -v which="$which" '/^[0-9]+ / {print (which == "collc" ? $2 : $3); exit}' "$work/out")
  if [ -z "$v" ]; then
    # 124: the wall-time limit; 152 or 137: past the CPU limit.
    case $rc in
      124|152|137) v=- ;;
      *) v=x
         echo "smpi-scale: $name $label failed (exit $rc): $(grep -v '^ *->' "$work/err" | grep -v '^$' | tail -2 | tr '\n' ' ')" >&2 ;;
    esac
  fi
  read -r u s m < <(tail -1 "$work/time" 2>/dev/null) || true
  printf '%-14s %-32s %12s %8.0f %8d\n' "$name" "$label" "$v" \
    "$(awk -v u="${u:-0}" -v s="${s:-0}" 'BEGIN {print u + s}')" $((${m:-0} / 1024))
  echo "$label $v" >> "$work/times-$name"
}

printf '%-14s %-32s %12s %8s %8s\n' platform algorithm "makespan us" "cpu s" "peak MB"
for name in "${plats[@]}"; do
  plat=$work/$name.xml
  case $name in
    torus) scale_platform "$plat" "$P" TORUS "$T" ;;
    fat-tree) scale_platform "$plat" "$P" FAT_TREE "$F" ;;
    *) echo "smpi-scale: error: SCALE_PLATFORMS: expected torus or fat-tree, got '$name'" >&2; exit 1 ;;
  esac
  # One build: the generated code's header names the schedule and its
  # model time ("//   allreduce ALG on NAME: ..., model time T").
  "$collc" --machine "$plat" "${opts[@]}" --bytes "$bytes" --algorithm auto \
    --emit mpi --mpi-name bench -o "$work/g.cpp"
  read -r alg est < <(awk -v c="$coll" '$1 == "//" && $2 == c && $4 == "on" {
      a = $3; m = $NF } END {print a, m}' "$work/g.cpp")
  printf '%-14s auto picks %s, collc estimates %.1f us\n' "$name" "$alg" "$est"
  smpicxx -std=c++17 -O2 -I"$root/runtime" "$root/bench/mpi/$driver" "$work/g.cpp" \
    -o "$work/drv" 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
  which=collc
  # As the arena: auto after one call of the same size (collc's first call
  # duplicates the communicator, an agreement among all ranks that a
  # program pays once), the built-ins after one call of one element (what
  # SMP-aware ones set up at their first call).
  launch "auto:$alg" "$work/drv" --which collc \
    --measure makespan --warmup 1 --no-check "$bytes"
  read -ra algs <<< "${SMPI_ALGS:-$(arena_smpi_algorithms "$coll" "$plat" "$work/hosts" "$work/drv")}"
  which=mpi
  for a in "${algs[@]}"; do
    launch "smpi:$a" "--cfg=smpi/$coll:$a" "$work/drv" --which mpi \
      --measure makespan --warmup 0 --prewarm --no-check "$bytes"
  done
  awk -v n="$name" 'NR == 1 {auto = $NF} NR > 1 && $NF ~ /^[0-9.]+$/ &&
       (best == "" || $NF + 0 < best + 0) {best = $NF; who = $1}
       END {if (best != "" && auto ~ /^[0-9.]+$/)
              printf "%s: auto / fastest built-in (%s %s) = %.3f\n", n, who, best, auto / best
            else print n ": no ratio (auto " auto ", fastest built-in " (best == "" ? "none" : best) ")"}' \
    "$work/times-$name"
done
