#!/usr/bin/env bash
# Benchmarks of generated broadcasts and all-to-alls (OSU-style: bytes,
# average µs per call).
#
#   bench/mpi/run.sh openmpi [collc]   # P = 2..16 under Open MPI, vs MPI_Bcast
#   bench/mpi/run.sh smpi [collc]      # the arena (bench/mpi/arena.sh): 256
#                                      # ranks on the simulated 16x16 torus and
#                                      # fat tree, broadcast and allreduce, every
#                                      # collc algorithm vs every SMPI built-in,
#                                      # makespans and the physical bound
#   bench/mpi/run.sh smpi-alltoall [collc]
#                                      # 256 ranks on the simulated 16x16 torus:
#                                      # sem and the torus baselines vs SMPI's
#                                      # built-in all-to-alls
#   bench/mpi/run.sh host [machine.yaml]
#                                      # this host under Open MPI: auto's
#                                      # broadcast and allreduce at P = 2, 4, 8
#                                      # on the spec collc-probe measures here
#                                      # (or the one given) vs MPI_Bcast and
#                                      # MPI_Allreduce; each call timed alone
#                                      # (a barrier before it, the slowest
#                                      # rank's time), the median of 5 launches
#                                      # of the median of 50 calls
#
# BUILD: the build directory whose bin/collc and bin/collc-probe run
# (default: build, the checkout's); BUILD=build-dev bench/mpi/run.sh host
# measures the build just made. A collc given as the second argument (modes
# openmpi, smpi, smpi-alltoall) takes precedence.
#
# Open MPI: schedules from `--algorithm auto` on the PC-cluster model; each
# cell is the median of 3 launches (the machine is shared and noisy).
# SMPI: simulated times are deterministic; one launch per algorithm.
set -euo pipefail
mode=${1:-openmpi}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
collc=$build/bin/collc
[ "$mode" = host ] || collc=${2:-$collc}
[ -x "$collc" ] || { echo "run.sh: no collc at $collc (BUILD=$build)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -O2 -Wall -Wextra -I"$root/runtime")

# gen <machine> <algorithm> <ranks> <out.cpp> <sizes...>: one file, one variant per size
# (broadcasts from root 0, or the collective in $coll).
coll=bcast
gen() {
  local m=$1 alg=$2 p=$3 out=$4
  shift 4
  local files=() root=()
  [ "$coll" = bcast ] && root=(--root 0)
  for b in "$@"; do
    "$collc" --machine "$m" --collective "$coll" --ranks "$p" "${root[@]}" --bytes "$b" \
      --algorithm "$alg" --emit json -o "$work/s-$p-$b.json"
    files+=(--schedule "$work/s-$p-$b.json")
  done
  "$collc" "${files[@]}" --emit mpi --mpi-name bench -o "$out"
  rm -f "$work"/s-*.json
}

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

if [ "$mode" = host ]; then
  # The machine as collc-probe measures it (8 processes, oversubscribed
  # above the cores), unless a spec is given.
  spec=${2:-}
  if [ -z "$spec" ]; then
    spec=$work/probed.yaml
    mpirun.openmpi --allow-run-as-root --oversubscribe -np 8 "$build/bin/collc-probe" \
      -o "$spec" >&2
  fi
  sizes=(1 65536 1048576)
  printf "%4s %-9s %9s %-26s %12s %12s %8s\n" P collective bytes "auto's algorithm" "collc µs" \
    "MPI µs" ratio
  for coll in bcast allreduce; do
    for p in 2 4 8; do
      extra=()
      [ "$coll" = allreduce ] && extra=(--op sum --datatype int32)
      files=()
      declare -A alg=()
      for b in "${sizes[@]}"; do
        bb=$b
        [ "$coll" = allreduce ] && bb=$(((b + 3) / 4 * 4))
        root_opt=()
        [ "$coll" = bcast ] && root_opt=(--root 0)
        "$collc" --machine "$spec" --collective "$coll" --ranks "$p" "${root_opt[@]}" \
          --bytes "$bb" "${extra[@]}" --algorithm auto --emit json -o "$work/s-$b.json"
        alg[$b]=$("$collc" --schedule "$work/s-$b.json" --emit summary |
          awk '$1 == "algorithm:" {print $2}')
        files+=(--schedule "$work/s-$b.json")
      done
      "$collc" "${files[@]}" --emit mpi --mpi-name bench -o "$work/h.cpp"
      mpicxx.openmpi "${flags[@]}" "$root/bench/mpi/osu_$coll.cpp" "$work/h.cpp" -o "$work/osu"
      run_sizes=()
      for b in "${sizes[@]}"; do
        [ "$coll" = allreduce ] && run_sizes+=($(((b + 3) / 4 * 4))) || run_sizes+=("$b")
      done
      for rep in 1 2 3 4 5; do
        mpirun.openmpi --allow-run-as-root --oversubscribe -np "$p" "$work/osu" --iters 50 \
          --measure median "${run_sizes[@]}" > "$work/rep$rep"
      done
      for i in "${!sizes[@]}"; do
        b=${run_sizes[$i]}
        c=$(awk -v b="$b" '$1 == b {print $2}' "$work"/rep? | median)
        m=$(awk -v b="$b" '$1 == b {print $3}' "$work"/rep? | median)
        printf "%4d %-9s %9d %-26s %12.1f %12.1f %8.2f\n" "$p" "$coll" "$b" "${alg[${sizes[$i]}]}" \
          "$c" "$m" "$(echo "$c / $m" | bc -l)"
      done
      unset alg
    done
  done
  exit 0
fi

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
plat=$root/examples/platforms/torus-16x16.xml
for i in $(seq 0 $((p - 1))); do echo "node-$i"; done > "$work/hosts"
smpi=(smpirun -np $p -platform "$plat" -hostfile "$work/hosts" --log=root.thres:critical
  --cfg=smpi/display-timing:no)
declare -A T

# table <collc algorithms...> -- <smpi algorithms...>: the simulated times in T
# per size ("-": did not finish), then the fastest SMPI algorithm's time over
# the first collc column's.
table() {
  local c=() m=() cols=() a w v best
  while [ "$1" != -- ]; do c+=("$1"); shift; done
  shift
  m=("$@")
  for a in "${c[@]}"; do cols+=("collc:$a"); done
  for a in "${m[@]}"; do cols+=("smpi:$a"); done
  printf "%9s" bytes
  for a in "${cols[@]}"; do w=$((${#a} > 10 ? ${#a} : 10)); printf " %${w}s" "$a"; done
  printf " %s\n" "best-smpi/${c[0]}"
  for b in "${sizes[@]}"; do
    printf "%9d" "$b"
    best=
    for a in "${cols[@]}"; do
      w=$((${#a} > 10 ? ${#a} : 10))
      v=${T[${a#*:},$b]:-}
      if [ -z "$v" ]; then printf " %${w}s" -; continue; fi
      printf " %${w}.1f" "$v"
      [ "${a%%:*}" = smpi ] && best=$(echo "$v" "${best:-$v}" | awk '{print ($1 < $2) ? $1 : $2}')
    done
    printf " %$((10 + ${#c[0]}))s\n" "$(printf "%.2f" "$(echo "$best / ${T[${c[0]},$b]}" | bc -l)")"
  done
}

# compare <driver.cpp>: $coll by collc's algorithms (collc_algs, schedules for
# the platform's model, one launch for all sizes) against SMPI's built-in
# ones (smpi_algs, --cfg=smpi/$coll:ALG, one launch per size, each given at
# most $limit seconds of wall time; after one runs out, the larger sizes of
# that algorithm are not tried), then the table.
limit=${SMPI_LIMIT:-300}
compare() {
  local drv=$1 a b c m
  for a in "${collc_algs[@]}"; do
    gen "$root/bench/mpi/torus-16x16.yaml" "$a" $p "$work/g.cpp" "${sizes[@]}"
    smpicxx "${flags[@]}" "$drv" "$work/g.cpp" -o "$work/osu-$a"
    while read -r b c _; do T[$a,$b]=$c; done < <("${smpi[@]}" "$work/osu-$a" --iters 1 \
      --which collc "${sizes[@]}")
  done
  for a in "${smpi_algs[@]}"; do
    for b in "${sizes[@]}"; do
      m=$(timeout "$limit" "${smpi[@]}" --cfg=smpi/$coll:$a "$work/osu-${collc_algs[0]}" \
        --iters 1 --which mpi "$b" | awk -v b="$b" '$1 == b {print $3}') || true
      T[$a,$b]=$m
      [ -n "$m" ] || break
    done
  done
  table "${collc_algs[@]}" -- "${smpi_algs[@]}"
}

if [ "$mode" = smpi-alltoall ]; then
  # Block sizes (bytes each rank sends each rank): 8 B, 256 B, 1 KiB and
  # 64 KiB. The generated code reuses scratch slots and staging areas by
  # lifetime (docs/mpi.md, "Posting and memory"): at 64 KiB sem's busiest
  # rank holds 76 MiB of scratch (344 MiB with every block apart), and the
  # 256 ranks' run peaks at 21.5 GB of host memory. Schedules for
  # the linear model of the platform (bench/mpi/torus-16x16.yaml). mmap
  # privatization: SMPI's default copies the program (and its tables) once
  # per rank. Local copies (collc's packing, the built-in algorithms'
  # rotations) cost no simulated time, so the figures do not depend on the
  # host's speed.
  coll=alltoall
  sizes=(8 256 1024 65536)
  export SMPI_PRIVATIZATION=mmap
  smpi+=(--cfg=smpi/simulate-computation:no)
  collc_algs=(sem torus-row-column torus-direct)
  smpi_algs=(default bruck 2dmesh 3dmesh pair ring rdb basic_linear mvapich2 ompi mpich)
  for b in "${sizes[@]}"; do
    a=$("$collc" --machine "$root/bench/mpi/torus-16x16.yaml" --collective alltoall \
      --ranks $p --bytes "$b" --algorithm auto --emit summary | awk '$1 == "algorithm:" {print $2}')
    echo "collc --algorithm auto, $b-byte blocks: $a"
  done
  compare "$root/bench/mpi/osu_alltoall.cpp"
  echo "(-: not finished in $limit s of wall time)"
  exit 0
fi

# smpi: the arena (bench/mpi/arena.sh: broadcast and allreduce, every collc
# algorithm against every SMPI built-in, on the torus and the fat tree).
"$root/bench/mpi/arena.sh" "$collc"
