#!/usr/bin/env bash
# The arena: collc's broadcasts and allreduces against every algorithm SMPI
# ships, on simulated platforms of 256 ranks, with the physical bound.
#
#   bench/mpi/arena.sh [collc]        (or: bench/mpi/run.sh smpi [collc])
#
# For each platform (examples/platforms/NAME.xml), collective and size: the
# makespan of one call (simulated µs on SimGrid's global clock: every rank
# starts the call at one moment, the makespan ends with the latest rank's
# end; osu.h; after one call of the same size for collc, whose first call
# duplicates the communicator, and after one call of one element for SMPI,
# whose SMP-aware algorithms split the communicator at their first call) of
#  - collc's `auto` and every collc algorithm that serves the collective and
#    builds on the platform (`collc --list-algorithms`; schedules built with
#    `--machine PLATFORM.xml`, so the network evaluator plans them),
#  - every SMPI built-in algorithm (`--cfg=smpi/bcast:NAME`,
#    `--cfg=smpi/allreduce:NAME`: SMPI's own list, asked of smpirun, without
#    `automatic`, which times every algorithm inside each call), and SMPI's
#    default,
#  - the physical bound where it covers the collective ("-" elsewhere;
#    build/bin/bench-bound; its assumptions are in
#    bench/bound_bench.cpp and docs/network.md),
# then per size: auto against the fastest SMPI built-in, SMPI's default and
# the bound, and issue 16's targets met or missed. Every run checks its data
# (the driver aborts on a wrong result: "x" in the table).
#
# Environment:
#   ARENA_PLATFORMS  platforms (default "torus-16x16 fat-tree-256")
#   ARENA_PLATFORM_DIR  where the platforms' NAME.xml are (default
#                    examples/platforms)
#   ARENA_RANKS      ranks, one per host node-0.. (default 256)
#   ARENA_COLLS      collectives (default "bcast allreduce"; also allgather,
#                    gather and scatter, rooted at rank 0, reduce-scatter
#                    (MPI_Reduce_scatter_block against SMPI's reduce_scatter
#                    algorithms), and the others bench/mpi has an
#                    osu_COLL.cpp driver for)
#   ARENA_SIZES      bytes (default "1 1024 65536 1048576"; a reduce-scatter's
#                    round up to a multiple of 4 x ARENA_RANKS; allreduce sums
#                    int32, so its sizes round up to whole elements: 1 -> 4)
#   ARENA_SMPI_ALGS  only these SMPI algorithms (default: all)
#   ARENA_COLLC_ALGS only these collc algorithms besides auto (default: all)
#   SMPI_LIMIT       seconds of wall time per run (default 120); "-" in the
#                    table for a run that did not finish; after one, larger
#                    sizes of that algorithm are not tried
#   ARENA_CACHE      where SMPI built-in results are kept (default
#                    build/arena-cache), keyed by SimGrid version, platform
#                    (name and content), collective, algorithm, size and
#                    measure: a rerun after collc changes reruns only collc's
#                    columns. A run that did not finish is kept with its
#                    limit and tried again under a larger one.
# Progress goes to standard error; the tables (Markdown) to standard output.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
collc=${1:-$root/build/bin/collc}
bound=${ARENA_BOUND:-$(dirname "$collc")/bench-bound}
cache=${ARENA_CACHE:-$root/build/arena-cache}
limit=${SMPI_LIMIT:-120}
read -ra platforms <<< "${ARENA_PLATFORMS:-torus-16x16 fat-tree-256}"
read -ra colls <<< "${ARENA_COLLS:-bcast allreduce}"
read -ra base_sizes <<< "${ARENA_SIZES:-1 1024 65536 1048576}"
p=${ARENA_RANKS:-256}
# Bump when the drivers' measure changes: cached results of another measure
# are not reused.
measure=makespan-2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -O2 -Wall -Wextra -I"$root/runtime")
. "$root/bench/mpi/arena-lib.sh"
sgver=$(arena_simgrid_version)
mkdir -p "$cache"
start_all=$(date +%s)
for i in $(seq 0 $((p - 1))); do echo "node-$i"; done > "$work/hosts"

say() { arena_say "$@"; }
# run <platform.xml> <seconds> <args...>: one launch on the $p ranks.
run() { arena_run "$1" "$work/hosts" "$p" "$2" "${@:3}"; }
fmt() { arena_fmt "$1"; }

for pname in "${platforms[@]}"; do
  plat=${ARENA_PLATFORM_DIR:-$root/examples/platforms}/$pname.xml
  [ -f "$plat" ] || { echo "arena: error: no platform $plat" >&2; exit 1; }
  pkey=$pname-$(md5sum < "$plat" | cut -c1-12)
  for coll in "${colls[@]}"; do
    start=$(date +%s)
    sizes=()
    for b in "${base_sizes[@]}"; do
      [ "$coll" = allreduce ] && b=$(((b + 3) / 4 * 4))
      [ "$coll" = reduce-scatter ] && b=$(((b + 4 * p - 1) / (4 * p) * 4 * p))
      sizes+=("$b")
    done
    opts=(--collective "$coll" --ranks $p)
    case $coll in bcast | gather | scatter) opts+=(--root 0) ;; esac
    case $coll in allreduce | reduce-scatter) opts+=(--op sum --datatype int32) ;; esac
    # SMPI's name of the collective, and its driver's: reduce_scatter.
    scoll=${coll//-/_}
    declare -A T=() Chosen=()
    # collc: auto, then every algorithm of the collective.
    if [ -n "${ARENA_COLLC_ALGS:-}" ]; then
      read -ra algs <<< "$ARENA_COLLC_ALGS"
    else
      mapfile -t algs < <("$collc" --list-algorithms |
        awk -v c="$coll" '{n = split($2, cs, ","); for (i = 1; i <= n; i++) if (cs[i] == c) print $1}')
    fi
    collc_cols=()
    for a in auto "${algs[@]}"; do
      files=()
      for b in "${sizes[@]}"; do
        if "$collc" --machine "$plat" "${opts[@]}" --bytes "$b" --algorithm "$a" \
          --emit json -o "$work/s-$b.json" 2> "$work/err"; then
          files+=(--schedule "$work/s-$b.json")
          [ "$a" = auto ] && Chosen[$b]=$("$collc" --schedule "$work/s-$b.json" --emit summary |
            awk '$1 == "algorithm:" {print $2}')
        else
          T[$a,$b]=n/a
        fi
      done
      # Only algorithms that build on the platform get a column.
      [ ${#files[@]} -gt 0 ] || { say "$pname $coll collc:$a does not build: $(head -1 "$work/err")"; continue; }
      collc_cols+=("$a")
      "$collc" "${files[@]}" --emit mpi --mpi-name bench -o "$work/g.cpp"
      smpicxx "${flags[@]}" "$root/bench/mpi/osu_$scoll.cpp" "$work/g.cpp" \
        -o "$work/osu-$coll-$a" 2> "$work/err" ||
        { cat "$work/err" >&2; echo "arena: error: the driver did not build" >&2; exit 1; }
      rm -f "$work"/s-*.json
      for b in "${sizes[@]}"; do
        [ -z "${T[$a,$b]:-}" ] || continue
        t0=$(date +%s)
        v=$(run "$plat" "$limit" "$work/osu-$coll-$a" --which collc --measure makespan \
          --warmup 1 "$b" | awk -v b="$b" '$1 == b {print $2; exit} $1 == "-" || $1 == "x" {print $1}')
        T[$a,$b]=${v:-x}
        say "$pname $coll collc:$a $b bytes: ${T[$a,$b]} ($(($(date +%s) - t0)) s)"
        [ "${T[$a,$b]}" != - ] || break
      done
    done
    drv=$work/osu-$coll-auto
    [ -x "$drv" ] || { echo "arena: error: collc's auto built no $coll on $pname" >&2; exit 1; }
    # SMPI's built-in algorithms.
    if [ -n "${ARENA_SMPI_ALGS:-}" ]; then
      read -ra smpi_algs <<< "$ARENA_SMPI_ALGS"
    else
      read -ra smpi_algs <<< "$(arena_smpi_algorithms "$scoll" "$plat" "$work/hosts" "$drv")"
      [ ${#smpi_algs[@]} -gt 0 ] ||
        { echo "arena: error: smpirun did not list its $coll algorithms" >&2; exit 1; }
    fi
    ms=()
    for a in "${smpi_algs[@]}"; do [ -n "$a" ] && ms+=("$a"); done
    smpi_algs=("${ms[@]}")
    for a in "${smpi_algs[@]}"; do
      for b in "${sizes[@]}"; do
        key=$cache/simgrid-$sgver/$pkey/$coll/$a/$b.$measure
        if [ -f "$key" ]; then
          read -r v lim < "$key"
          if [ "$v" != - ] || [ "$lim" -ge "$limit" ]; then
            T[s:$a,$b]=$v
            [ "$v" != - ] && continue || break
          fi
        fi
        t0=$(date +%s)
        v=$(run "$plat" "$limit" --cfg=smpi/$scoll:$a "$drv" --which mpi --measure makespan \
          --warmup 0 --prewarm "$b" | awk -v b="$b" '$1 == b {print $3; exit} $1 == "-" || $1 == "x" {print $1}')
        v=${v:-x}
        T[s:$a,$b]=$v
        mkdir -p "$(dirname "$key")"
        echo "$v $limit" > "$key"
        say "$pname $coll smpi:$a $b bytes: $v ($(($(date +%s) - t0)) s)"
        [ "$v" != - ] || break
      done
    done
    # The bound, where bench-bound covers the collective ("-" elsewhere).
    if "$bound" --machine "$plat" --collective "$coll" --ranks $p "${sizes[@]}" \
      > "$work/bound" 2> "$work/bound-err"; then
      while read -r b v _; do T[bound,$b]=$v; done < <(grep -v '^#' "$work/bound")
    else
      sed 's/^/# /' "$work/bound-err" > "$work/bound"
    fi

    # The table.
    echo
    echo "**$coll on $pname** ($p ranks; makespan of one call, simulated µs; SimGrid $sgver;" \
      "\"-\": not finished in $limit s, \"x\": failed, n/a: does not build)"
    echo
    line="| bytes |"
    sep="|---:|"
    for a in "${collc_cols[@]}"; do line+=" collc:$a |"; sep+="---:|"; done
    for a in "${smpi_algs[@]}"; do line+=" smpi:$a |"; sep+="---:|"; done
    echo "$line bound |"
    echo "$sep---:|"
    for b in "${sizes[@]}"; do
      line="| $b |"
      for a in "${collc_cols[@]}"; do line+=" $(fmt "${T[$a,$b]:--}") |"; done
      for a in "${smpi_algs[@]}"; do line+=" $(fmt "${T[s:$a,$b]:--}") |"; done
      echo "$line $(fmt "${T[bound,$b]:--}") |"
    done
    echo
    echo "Bound (bench-bound: bytes bound latency transfer LF BF where):"
    echo
    sed 's/^/    /' "$work/bound"
    echo
    for b in "${sizes[@]}"; do
      t=${T[auto,$b]:-x}
      best= bname=
      for a in "${smpi_algs[@]}"; do
        v=${T[s:$a,$b]:--}
        case $v in -|x) continue ;; esac
        if [ -z "$best" ] || awk -v v="$v" -v b="$best" 'BEGIN {exit !(v < b)}'; then
          best=$v bname=$a
        fi
      done
      def=${T[s:default,$b]:--}
      case $t in -|x|n/a)
        echo "- $b bytes: auto did not run ($t): targets missed"; continue ;;
      esac
      awk -v b="$b" -v t="$t" -v alg="${Chosen[$b]:-?}" -v best="$best" -v bn="$bname" \
        -v def="$def" -v bound="${T[bound,$b]:--}" 'BEGIN {
        s = sprintf("- %d bytes: auto (%s) %.1f", b, alg, t)
        if (best != "") {
          s = s sprintf("; fastest SMPI %s %.1f: %.2fx (%s)", bn, best, t / best,
            t <= best ? "target met" : "target missed")
        }
        if (def != "-" && def != "x") {
          s = s sprintf("; SMPI default %.1f: %.2fx", def, t / def)
          if (b >= 65536) s = s (t <= def / 2 ? " (target <= 0.5x met)" : " (target <= 0.5x missed)")
        }
        if (bound != "-") {
          s = s sprintf("; bound %.1f: %.2fx", bound, t / bound)
          if (b == 1048576) s = s (t <= 2 * bound ? " (target <= 2x met)" : " (target <= 2x missed)")
        }
        print s
      }'
    done
    echo
    say "$pname $coll done in $(($(date +%s) - start)) s"
    unset T Chosen
  done
done
say "all done in $(($(date +%s) - start_all)) s"
