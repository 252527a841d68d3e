#!/usr/bin/env bash
# The physical bound holds (passes/LowerBound.h, bench-bound): on a small
# draw of one platform of every family (16 to 24 ranks, one or several per
# host), no measured cell of the random arena (auto and every SMPI built-in
# of every collective and size, makespans under SMPI) is below the bound.
# Exits 77 (skipped) without smpirun.
#
#   bound_holds.sh COLLC SOURCE_DIR WORK_DIR
set -euo pipefail
collc=$1 src=$2 work=$3
command -v smpirun > /dev/null || { echo "bound-holds: no smpirun; skipped"; exit 77; }
rm -rf "$work/out"
mkdir -p "$work"
ARENA_SEED=${ARENA_SEED:-2718} ARENA_COUNT=7 ARENA_MIN_RANKS=16 ARENA_MAX_RANKS=24 \
  ARENA_OUT="$work/out" ARENA_CACHE="$work/cache" SMPI_LIMIT=120 \
  bash "$src/bench/mpi/random-arena.sh" "$collc" > /dev/null
out=$work/out
cells=$(awk -F'\t' '$7 ~ /^[0-9.]+$/' "$out/cells.tsv" | wc -l)
bounds=$(wc -l < "$out/bound.tsv")
[ "$bounds" = $((7 * 5 * 4)) ] || { echo "bound-holds: expected 140 bounds, got $bounds"; exit 1; }
# Every measured cell against its bound (0.01% for the rounding of both).
awk -F'\t' 'FNR == NR {b[$1 " " $2 " " $3] = $4; w[$1 " " $2 " " $3] = $5; next}
  $7 ~ /^[0-9.]+$/ {
    k = $1 " " $4 " " $5
    if (!(k in b)) { print "no bound for " k; bad++; next }
    if ($7 < b[k] * 0.9999) { printf "%s %s: %s took %s, below the bound %s (%s)\n", $1, $4 " " $5 " B", $6, $7, b[k], w[k]; bad++ }
  }
  END { exit bad > 0 }' "$out/bound.tsv" "$out/cells.tsv" ||
  { echo "bound-holds: the bound does not hold (platforms in $out/platforms)"; exit 1; }
echo "bound-holds: $cells measured cells on 7 platforms, none below the bound"
awk -F'\t' '$7 ~ /^[0-9.]+$/ {k = $1 " " $4 " " $5; if (!(k in m) || $7 < m[k]) m[k] = $7}
  FNR == NR {b[$1 " " $2 " " $3] = $4; next}
  END {for (k in m) if (k in b) {r = m[k] / b[k]; s += r; n++; if (r < lo || !lo) lo = r}
    printf "bound-holds: fastest measured / bound: mean %.2f, least %.2f over %d cells\n", s / n, lo, n}' \
  "$out/bound.tsv" "$out/cells.tsv"
