#!/usr/bin/env bash
# Generated MPI code of the star-graph broadcasts under real MPI (paper 002):
# S_4 (24 ranks) with star-search under Open MPI, MS(2,2) (120 ranks) with
# macro-star under SMPI. Rank = node number; each run broadcasts 1024 bytes
# from two roots (node 0 and a root given as a permutation).
#
#   run_star_mpi.sh openmpi|smpi <collc> <srcdir> <workdir>
set -euo pipefail
mode=$1 collc=$2 src=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
case $mode in
  openmpi) machine=star-4 ranks=24 alg=star-search roots="0 2413" cxx=mpicxx.openmpi ;;
  smpi) machine=macro-star-2-2 ranks=120 alg=macro-star roots="0 14523" cxx=smpicxx ;;
  *) echo "run_star_mpi.sh: unknown mode $mode" >&2; exit 2 ;;
esac
command -v "$cxx" >/dev/null || { echo "run_star_mpi.sh: $cxx not found" >&2; exit 1; }
args=() nums=()
for r in $roots; do
  "$collc" --machine "$src/examples/machines/$machine.yaml" --collective bcast \
    --ranks "$ranks" --root "$r" --bytes 1024 --algorithm "$alg" --emit json \
    -o "$work/$r.json"
  args+=(--schedule "$work/$r.json")
  # The root's rank (= node number) as the JSON says it.
  nums+=("$(grep -o '"root": *[0-9]*' "$work/$r.json" | head -n 1 | grep -o '[0-9]*$')")
done
"$collc" "${args[@]}" --machine "$src/examples/machines/$machine.yaml" --emit mpi \
  --mpi-name star -o "$work/star.cpp"
flags=(-std=c++17 -O2 -Wall -Wextra -Werror -I"$src/runtime")
"$cxx" "${flags[@]}" "$work/star.cpp" "$src/tests/star/star_bcast_check.cpp" -o "$work/check"
echo "== $mode, $machine, $ranks ranks, roots ${nums[*]}"
if [ "$mode" = smpi ]; then
  for i in $(seq 0 $((ranks - 1))); do echo "node-$i"; done > "$work/hosts"
  smpirun -np "$ranks" -platform "$src/examples/platforms/cluster-256.xml" \
    -hostfile "$work/hosts" --log=root.thres:critical --cfg=smpi/display-timing:no \
    "$work/check" "${nums[@]}"
else
  timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$ranks" \
    "$work/check" "${nums[@]}"
fi
