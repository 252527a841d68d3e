#!/usr/bin/env bash
# Benchmarks of generated broadcasts (OSU-style: bytes, average µs per call).
#
#   bench/mpi/run.sh openmpi [collc]   # P = 2..16 under Open MPI, vs MPI_Bcast
#   bench/mpi/run.sh smpi [collc]      # 256 ranks on the simulated 16x16 torus,
#                                      # vs SMPI's built-in broadcasts
#
# Open MPI: schedules from `--algorithm auto` on the PC-cluster model; each
# cell is the median of 3 launches (the machine is shared and noisy).
# SMPI: simulated times are deterministic; one launch per algorithm.
set -euo pipefail
mode=${1:-openmpi}
root=$(cd "$(dirname "$0")/../.." && pwd)
collc=${2:-$root/build/bin/collc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -O2 -Wall -Wextra -I"$root/runtime")

# gen <machine> <algorithm> <ranks> <out.cpp> <sizes...>: one file, one variant per size.
gen() {
  local m=$1 alg=$2 p=$3 out=$4
  shift 4
  local files=()
  for b in "$@"; do
    "$collc" --machine "$m" --collective bcast --ranks "$p" --root 0 --bytes "$b" \
      --algorithm "$alg" --emit json -o "$work/s-$p-$b.json"
    files+=(--schedule "$work/s-$p-$b.json")
  done
  "$collc" "${files[@]}" --emit mpi --mpi-name bench -o "$out"
  rm -f "$work"/s-*.json
}

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

if [ "$mode" = openmpi ]; then
  sizes=(1 1024 65536 1048576)
  sed "s/nodes: 16/nodes: 64/" "$root/examples/machines/pc-cluster.yaml" > "$work/m.yaml"
  printf "%4s %9s %12s %12s %8s\n" P bytes "collc µs" "MPI_Bcast µs" ratio
  for p in $(seq 2 16); do
    gen "$work/m.yaml" auto "$p" "$work/b.cpp" "${sizes[@]}"
    mpicxx.openmpi "${flags[@]}" "$root/bench/mpi/osu_bcast.cpp" "$work/b.cpp" -o "$work/osu"
    for rep in 1 2 3; do
      mpirun.openmpi --allow-run-as-root --oversubscribe -np "$p" "$work/osu" --iters 50 \
        "${sizes[@]}" > "$work/rep$rep"
    done
    for b in "${sizes[@]}"; do
      c=$(awk -v b="$b" '$1 == b {print $2}' "$work"/rep? | median)
      m=$(awk -v b="$b" '$1 == b {print $3}' "$work"/rep? | median)
      printf "%4d %9d %12.1f %12.1f %8.2f\n" "$p" "$b" "$c" "$m" "$(echo "$c / $m" | bc -l)"
    done
  done
  exit 0
fi

# SMPI on the 16x16 torus.
p=256
sizes=(1 65536 1048576)
plat=$root/examples/platforms/torus-16x16.xml
for i in $(seq 0 $((p - 1))); do echo "node-$i"; done > "$work/hosts"
run() { smpirun -np $p -platform "$plat" -hostfile "$work/hosts" --log=root.thres:critical \
          --cfg=smpi/display-timing:no "$@"; }
declare -A T
collc_algs=(auto opt-tree binomial)
smpi_algs=(default binomial_tree scatter_LR_allgather scatter_rdb_allgather)
for a in "${collc_algs[@]}"; do
  gen "$root/bench/mpi/torus-16x16.yaml" "$a" $p "$work/b.cpp" "${sizes[@]}"
  smpicxx "${flags[@]}" "$root/bench/mpi/osu_bcast.cpp" "$work/b.cpp" -o "$work/osu-$a"
  while read -r b c _; do T[$a,$b]=$c; done < <(run "$work/osu-$a" --iters 1 --which collc "${sizes[@]}")
done
for a in "${smpi_algs[@]}"; do
  while read -r b _ m; do T[$a,$b]=$m; done < <(run --cfg=smpi/bcast:$a "$work/osu-auto" \
    --iters 1 --which mpi "${sizes[@]}")
done
printf "%9s" bytes
for a in "${collc_algs[@]}"; do printf " %12s" "collc:$a"; done
for a in "${smpi_algs[@]}"; do printf " %22s" "smpi:$a"; done
printf " %14s\n" "best-smpi/collc"
for b in "${sizes[@]}"; do
  printf "%9d" "$b"
  for a in "${collc_algs[@]}"; do printf " %12.1f" "${T[$a,$b]}"; done
  best=
  for a in "${smpi_algs[@]}"; do
    printf " %22.1f" "${T[$a,$b]}"
    best=$(echo "${T[$a,$b]}" "${best:-${T[$a,$b]}}" | awk '{print ($1 < $2) ? $1 : $2}')
  done
  printf " %14.2f\n" "$(echo "$best / ${T[auto,$b]}" | bc -l)"
done
