#!/usr/bin/env bash
# The random arena on a small draw (bench/mpi/random-arena.sh): two
# platforms of 16 to 32 ranks, every collective and size, auto against a
# few SMPI built-ins. Checks that auto ran and delivered the right data in
# every cell (the drivers abort on wrong data: "x"), that every cell has a
# built-in to compare with, that the summary lists exactly the cells where
# auto is more than 0.1% slower than the fastest built-in (recomputed here
# from cells.tsv) with their platforms kept, that it counts issue 27's two
# targets' cells and misses as cells.tsv and bound.tsv give them, and that
# the summary comes out the same when made again. Exits 77 (skipped) without
# smpirun.
#
#   random_arena_small.sh COLLC SOURCE_DIR WORK_DIR
set -euo pipefail
collc=$1 src=$2 work=$3
command -v smpirun > /dev/null || { echo "random-arena: no smpirun; skipped"; exit 77; }
rm -rf "$work/out"
mkdir -p "$work"
ARENA_SEED=${ARENA_SEED:-27} ARENA_COUNT=2 ARENA_FIRST=${ARENA_FIRST:-2} \
  ARENA_MIN_RANKS=16 ARENA_MAX_RANKS=32 \
  ARENA_SMPI_ALGS="default binomial_tree scatter_rdb_allgather rdb rab2 lr binomial flat_tree ring bruck pair basic_linear" \
  ARENA_OUT="$work/out" ARENA_CACHE="$work/cache" SMPI_LIMIT=300 \
  bash "$src/bench/mpi/random-arena.sh" "$collc" > "$work/summary.txt"
out=$work/out
fail() { echo "random-arena: $*"; exit 1; }
platforms=$(grep -c -v '^#' "$out/index.tsv")
[ "$platforms" = 2 ] || fail "expected 2 platforms, got $platforms"
autos=$(awk -F'\t' '$6 == "auto"' "$out/cells.tsv" | wc -l)
[ "$autos" = 40 ] || fail "expected 40 auto cells (2 platforms x 5 collectives x 4 sizes), got $autos"
bad=$(awk -F'\t' '$6 == "auto" && $7 !~ /^[0-9.]+$/' "$out/cells.tsv")
[ -z "$bad" ] || fail "auto did not run in these cells: $bad"
# Every cell has a built-in that finished.
missing=$(awk -F'\t' '$6 != "auto" && $7 ~ /^[0-9.]+$/ {ok[$1 " " $4 " " $5] = 1}
  $6 == "auto" {all[$1 " " $4 " " $5] = 1}
  END {for (k in all) if (!(k in ok)) print k}' "$out/cells.tsv")
[ -z "$missing" ] || fail "no SMPI built-in finished in: $missing"
# The shortfalls, recomputed.
awk -F'\t' '$6 == "auto" {a[$1 " " $4 " " $5] = $7}
  $6 != "auto" && $7 ~ /^[0-9.]+$/ {k = $1 " " $4 " " $5; if (!(k in b) || $7 < b[k]) b[k] = $7}
  END {for (k in a) if (a[k] > b[k] * 1.001) print k}' "$out/cells.tsv" | sort > "$work/expected"
{ grep '^| `shortfalls/' "$out/summary.md" || true; } |
  awk -F' [|] ' '{p = $1; sub(/^[|] `shortfalls\//, "", p); sub(/\.xml`$/, "", p); print p " " $2 " " $3}' |
  sort > "$work/listed"
diff "$work/expected" "$work/listed" > /dev/null ||
  fail "the summary's shortfalls differ from cells.tsv's: $(diff "$work/expected" "$work/listed" | head -5)"
while read -r p _; do
  [ -f "$out/shortfalls/$p.xml" ] && [ -f "$out/shortfalls/$p.hosts" ] ||
    fail "shortfall platform $p not kept"
done < "$work/expected"
grep -q '^| all | 40 |' "$out/summary.md" || fail "the summary does not count 40 cells"
# Issue 27's targets, recomputed: cells at 64 KiB and above whose bound is
# below 0.4x SMPI's default and those where auto is above half the default;
# 1 MiB cells of tori and fat trees and those where auto is above 2x (tori)
# or 3x (fat trees) the bound.
targets=$(awk -F'\t' 'FNR == NR {b[$1 " " $2 " " $3] = $4; next}
  {k = $1 " " $4 " " $5}
  $6 == "smpi:default" {d[k] = $7}
  $6 == "auto" {a[k] = $7; f[k] = $2; s[k] = $5}
  END {
    for (k in a) {
      if (a[k] !~ /^[0-9.]+$/ || !(k in b) || b[k] <= 0) continue
      if (s[k] >= 65536 && d[k] ~ /^[0-9.]+$/ && d[k] > 0 && b[k] < 0.4 * d[k]) { h++; if (a[k] > 0.5 * d[k]) hm++ }
      lim = f[k] ~ /^torus/ ? 2 : f[k] ~ /^fat-tree/ ? 3 : 0
      if (s[k] == 1048576 && lim) { t++; if (a[k] > lim * b[k]) tm++ }
    }
    printf "| all | %d | %d | | %d | %d | |\n", h, hm, t, tm
  }' "$out/bound.tsv" "$out/cells.tsv")
grep -q -x -F "$targets" "$out/summary.md" ||
  fail "the summary's targets differ from cells.tsv's and bound.tsv's: expected '$targets', got '$(grep -A20 '^| family | half' "$out/summary.md" | grep '^| all')'"
cp "$out/summary.md" "$work/summary-first.md"
ARENA_BOUND=$(dirname "$collc")/bench-bound bash "$src/bench/mpi/random-arena.sh" summary "$out" > /dev/null
cmp -s "$out/summary.md" "$work/summary-first.md" || fail "the summary changed when made again"
echo "random-arena: 2 platforms, 40 cells, $(wc -l < "$work/expected") shortfalls; summary:"
sed -n '1,/^## Shortfalls/p' "$out/summary.md"
