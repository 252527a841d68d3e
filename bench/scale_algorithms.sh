#!/usr/bin/env bash
# Every algorithm of every collective at one rank count (issue 26: "every
# algorithm builds and verifies at 4,096 ranks"): for each line of
# `collc --list-algorithms` and each collective it serves, collc builds the
# named algorithm on three machines and runs its passes, the verifier of data
# flow, ports and timing included (it runs on every schedule), and writes it
# as JSON (as another tool would read it; collc writes it straight to the
# output). Machines: a
# 2-D torus and a 2:1 fat tree as SimGrid platforms of the bundled kinds
# (bench/scale_platform.sh, 12.5 GB/s, 1 us links) and a plain spec machine
# (linear model, every node linked to every other). Prints one row per case:
# `verified` with wall seconds, CPU seconds (user + system: what the case
# took on a shared machine, where wall time waits for the others) and peak
# resident memory (MB), `refused:` or `error:` with the start of collc's
# message, or `timeout` (of the wall seconds).
#
# usage: bench/scale_algorithms.sh <collc> [ranks] [seconds per case]
#                                  [machines] [collectives] [algorithms]
#   machines: a comma-separated list of torus, fat-tree, spec (default all);
#   collectives, algorithms: comma-separated lists (default every one
#   listed). COLLC_MEMORY_KB, if set, caps each case's virtual memory
#   (ulimit -v), so that the P^2 ones do not take the machine's.
# Sizes: 64 KiB for the rooted and reducing collectives (int32 sum), 16 bytes
# a block for the block collectives, 0 for the barrier; a multicast goes to
# every other rank.
set -u
COLLC=${1:?usage: scale_algorithms.sh <collc> [ranks] [seconds] [machines] [collectives]}
P=${2:-4096}
LIMIT=${3:-30}
MACHINES=${4:-torus,fat-tree,spec}
ONLY=${5:-}
ALGS=${6:-}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

# shellcheck source=bench/scale_platform.sh
source "$(dirname "$0")/scale_platform.sh"
# The torus as square as P allows and the fat tree of bench/scale.sh's shape:
# 64 leaf switches of P/64 ranks, 2:1 oversubscribed.
Side=1
while [ $(((Side * 2) * (Side * 2))) -le "$P" ]; do Side=$((Side * 2)); done
scale_platform "$DIR/torus.xml" "$P" TORUS "$Side,$((P / Side))"
scale_platform "$DIR/fat-tree.xml" "$P" FAT_TREE \
  "2;$((P / 64)),64;1,$((P / 256 > 0 ? P / 256 : 1));1,2"
cat >"$DIR/spec.yaml" <<EOX
name: spec-$P
model:
  kind: linear
  t_s: 1
  per_byte: 0.0001
topology:
  kind: full
  nodes: $P
EOX

Dests=$(seq -s, 1 2 $((P - 1)))

printf '%-10s %-25s %-9s %-30s %8s %8s %8s\n' collective algorithm machine \
  result "wall s" "cpu s" "peak MB"
"$COLLC" --list-algorithms | while read -r Name Colls _; do
  for C in ${Colls//,/ }; do
    if [ -n "$ONLY" ] && [[ ",$ONLY," != *",$C,"* ]]; then continue; fi
    if [ -n "$ALGS" ] && [[ ",$ALGS," != *",$Name,"* ]]; then continue; fi
    Extra=()
    Group=(--ranks "$P")
    case $C in
    bcast | reduce | allreduce | scan | exscan) Bytes=65536 ;;
    multicast) Bytes=65536 Group=(--root 0 --destinations "$Dests") ;;
    reduce-scatter) Bytes=$((16 * P)) ;;
    barrier) Bytes=0 ;;
    *) Bytes=16 ;;
    esac
    case $C in
    reduce | allreduce | scan | exscan | reduce-scatter)
      Extra+=(--op sum --datatype int32) ;;
    esac
    for Mach in ${MACHINES//,/ }; do
      File="$DIR/$Mach.xml"
      [ "$Mach" = spec ] && File="$DIR/spec.yaml"
      Out="$DIR/out.txt"
      (
        [ -n "${COLLC_MEMORY_KB:-}" ] && ulimit -v "$COLLC_MEMORY_KB"
        exec /usr/bin/time -f '%e %U %S %M' -o "$DIR/time.txt" \
          timeout "$LIMIT" "$COLLC" --machine "$File" --collective "$C" \
          "${Group[@]}" --bytes "$Bytes" --algorithm "$Name" "${Extra[@]}" \
          --emit json -o /dev/null
      ) </dev/null >"$Out" 2>&1
      RC=$?
      read -r Wall User Sys Peak < <(tail -1 "$DIR/time.txt") || true
      Cpu=$(awk -v U="${User:-0}" -v S="${Sys:-0}" 'BEGIN {printf "%.2f", U + S}')
      if [ "$RC" = 0 ]; then
        Result=verified
      elif [ "$RC" = 124 ]; then
        Result="timeout"
      else
        # The first line of collc's message, and the next where it ends
        # with a colon (a verifier's problem).
        Msg=$(awk '/error: /{sub(/.*error: /, ""); M = $0; if (!/:$/) exit; next}
                   M != "" {sub(/^ +/, ""); M = M " " $0; exit}
                   END {print M}' "$Out")
        Result="error: ${Msg:-exit $RC}"
      fi
      printf '%-10s %-25s %-9s %-30s %8s %8s %8s\n' "$C" "$Name" "$Mach" \
        "$Result" "${Wall:--}" "$Cpu" "$((${Peak:-0} / 1024))"
    done
  done
done
