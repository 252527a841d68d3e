#!/usr/bin/env bash
# `--algorithm auto` picks what the sweep shows to be cheapest: bench-sweep
# writes the model time of every candidate algorithm at every point of paper
# 001's figures (3 machines, bcast/allreduce/scan, P = 8, 16, 32, 4 B..1 MiB);
# at each point collc's auto must choose an algorithm whose sweep time is the
# minimum, and report that time.
#
#   auto_vs_sweep.sh <bench-sweep> <collc> <srcdir> <workdir>
set -euo pipefail
sweep=$1 collc=$2 src=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
"$sweep" "$src" "$work" > "$work/sweep.out"
# One line per point: machine collective ranks bytes min_time cheapest-algorithms
awk -F, 'NR > 1 {
  k = $1 " " $2 " " $3 " " $5
  if (!(k in min) || $7 < min[k] - 0.0005) { min[k] = $7; best[k] = $4 }
  else if ($7 <= min[k] + 0.0005) best[k] = best[k] "," $4
} END { for (k in min) print k, min[k], best[k] }' "$work/sweep.csv" | sort > "$work/points"
n=0 bad=0
while read -r machine coll ranks bytes tmin algs; do
  extra=()
  [ "$coll" = bcast ] || extra=(--op sum --datatype int32)
  out=$("$collc" --machine "$src/examples/machines/$machine.yaml" --collective "$coll" \
    --ranks "$ranks" --bytes "$bytes" "${extra[@]}" --algorithm auto)
  alg=$(awk '$1 == "algorithm:" {print $2}' <<< "$out")
  t=$(awk '$1 == "makespan:" {print $2}' <<< "$out")
  n=$((n + 1))
  if [[ ",$algs," != *",$alg,"* ]] ||
     ! awk -v a="$t" -v b="$tmin" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-4 * (b > 1 ? b : 1)) }'; then
    echo "MISMATCH $machine $coll P=$ranks $bytes B: auto chose $alg ($t), sweep's cheapest: $algs ($tmin)"
    bad=$((bad + 1))
  fi
done < "$work/points"
echo "auto vs sweep: $n points, $bad mismatches"
[ "$n" -gt 400 ] && [ "$bad" -eq 0 ]
