#!/usr/bin/env bash
# collc at scale: compile time and peak memory of `auto` for broadcast,
# allreduce, allgather and all-to-all at 1 B, 64 KiB and 1 MiB on SimGrid
# tori and fat trees of 1,024 to 1,048,576 ranks (12.5 GB/s, 1 us links, as
# the bundled platforms). Prints one table row per case: the platform, the
# ranks, the collective and size, auto's pick and its predicted time, the
# wall seconds, the CPU seconds (user + system: on a loaded host the wall
# time is inflated, the CPU time much less) and the peak resident memory
# (MB). A case that exceeds the time limit prints "timeout"; one that collc
# refuses prints its error.
#
# usage: bench/scale.sh <collc> [max-ranks] [seconds per case] [collectives]
#   collectives: a comma-separated list (default bcast,allreduce,allgather,
#   alltoall); all-to-all stops at 4,096 ranks (its P^2 blocks).
# Environment: SCALE_MIN_RANKS skips the rank counts below it (e.g. 65536
# for the 65,536-rank rows alone); COLLC_MEMORY_KB caps each run's virtual
# memory (ulimit -v), so that a run that would take more fails instead.
set -u
COLLC=${1:?usage: scale.sh <collc> [max-ranks] [seconds] [collectives]}
MAXP=${2:-65536}
LIMIT=${3:-120}
COLLS=${4:-bcast,allreduce,allgather,alltoall}
MINP=${SCALE_MIN_RANKS:-0}
[ -n "${COLLC_MEMORY_KB:-}" ] && ulimit -v "$COLLC_MEMORY_KB"
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

# shellcheck source=bench/scale_platform.sh
source "$(dirname "$0")/scale_platform.sh"
platform() { scale_platform "$DIR/$1.xml" "$2" "$3" "$4"; }

# The platforms: a 2-D torus and a two-level fat tree (2:1 oversubscribed,
# as fat-tree-256.xml) per size.
CASES=()
for P in 1024 4096 65536 1048576; do
  [ "$P" -le "$MAXP" ] && [ "$P" -ge "$MINP" ] || continue
  case $P in
  1024) T="32,32" F="2;32,32;1,8;1,2" ;;
  4096) T="64,64" F="2;64,64;1,16;1,2" ;;
  65536) T="256,256" F="2;256,256;1,64;1,2" ;;
  1048576) T="1024,1024" F="2;1024,1024;1,256;1,2" ;;
  esac
  platform "torus-$P" "$P" TORUS "$T"
  platform "fat-tree-$P" "$P" FAT_TREE "$F"
  CASES+=("torus-$P $P" "fat-tree-$P $P")
done

printf '%-16s %8s %-10s %8s %-26s %12s %9s %9s %9s\n' platform ranks \
  collective bytes "auto picks" "predicted us" "wall s" "CPU s" "peak MB"
for C in ${COLLS//,/ }; do
  for Case in "${CASES[@]}"; do
    read -r Name P <<<"$Case"
    [ "$C" = alltoall ] && [ "$P" -gt 4096 ] && continue
    for B in 1 65536 1048576; do
      Bytes=$B
      Extra=()
      case $C in
      allreduce) Extra=(--op sum --datatype int32) ;;
      allgather | alltoall) Bytes=$(((B + P - 1) / P)) ;;
      esac
      [ "$C" = allreduce ] && [ "$Bytes" -lt 4 ] && Bytes=4
      Out="$DIR/out.txt"
      /usr/bin/time -f '%e %M %U %S' -o "$DIR/time.txt" \
        timeout "$LIMIT" "$COLLC" --machine "$DIR/$Name.xml" \
        --collective "$C" --ranks "$P" --bytes "$Bytes" "${Extra[@]}" \
        --emit json -o "$DIR/s.json" --time-passes >"$Out" 2>&1
      RC=$?
      read -r Wall Peak User Sys < <(tail -1 "$DIR/time.txt") || true
      Cpu=$(awk -v U="${User:-0}" -v S="${Sys:-0}" 'BEGIN { printf "%.2f", U + S }')
      if [ "$RC" = 124 ]; then
        Pick=timeout Pred=-
      elif [ "$RC" != 0 ]; then
        Pick="error: $(grep -m1 -o 'error: .*' "$Out" | cut -c8-40)" Pred=-
      else
        Pick=$(head -c 4000 "$DIR/s.json" | grep -o '"algorithm": *"[^"]*"' | head -1 |
          sed 's/.*: *"//; s/"$//')
        Pred=$(head -c 4000 "$DIR/s.json" | grep -o '"makespan": *[0-9.e+-]*' | head -1 |
          sed 's/.*: *//')
        Pred=$(printf '%.1f' "$Pred")
      fi
      printf '%-16s %8s %-10s %8s %-26s %12s %9s %9s %9s\n' "$Name" "$P" \
        "$C" "$Bytes" "$Pick" "$Pred" "${Wall:--}" "$Cpu" \
        "$((${Peak:-0} / 1024))"
    done
  done
done
