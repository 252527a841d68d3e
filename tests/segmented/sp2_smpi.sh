#!/usr/bin/env bash
# Paper 001's finding measured, not only modelled: the segmented broadcasts
# beat binomial at large messages on the SP2. collc builds each broadcast for
# the SP2 model (examples/machines/sp2.yaml), emits MPI code, and SMPI runs it
# on a platform with the SP2's latency and bandwidth
# (examples/platforms/sp2-32.xml). Prints model and simulated times and each
# algorithm's speedup over binomial in both; fails if a segmented broadcast is
# not faster than binomial under SMPI, or if the simulated speedup of the best
# one is off the model's by more than a quarter.
#
#   sp2_smpi.sh <collc> <srcdir> <workdir> [P...]   (default P = 8 16 32)
set -euo pipefail
collc=$1 src=$2 work=$3
shift 3
procs=("$@")
[ ${#procs[@]} -gt 0 ] || procs=(8 16 32)
bytes=1048576
algs=(binomial edge-disjoint k-segment pipeline two-path-pipeline scatter-allgather)
segmented=(edge-disjoint k-segment pipeline two-path-pipeline scatter-allgather)
rm -rf "$work"
mkdir -p "$work"
cd "$work"
flags=(-std=c++17 -O2 -Wall -Wextra -Werror -I"$src/runtime")
for i in $(seq 0 31); do echo "node-$i"; done > hosts
status=0
printf "%4s %-18s %12s %12s %10s %10s\n" P algorithm "model µs" "SMPI µs" "model x" "SMPI x"
for p in "${procs[@]}"; do
  objs=() names=()
  declare -A model=()
  for a in "${algs[@]}"; do
    n=${a//-/_}
    "$collc" --machine "$src/examples/machines/sp2.yaml" --collective bcast --ranks "$p" \
      --bytes $bytes --algorithm "$a" --emit json -o "$n-$p.json"
    model[$a]=$(sed -n 's/^ *"makespan": *\([0-9.e+]*\).*/\1/p' "$n-$p.json" | head -1)
    "$collc" --schedule "$n-$p.json" --emit mpi --mpi-name "$n" -o "$n-$p.cpp"
    smpicxx "${flags[@]}" -c "$n-$p.cpp" -o "$n-$p.o"
    objs+=("$n-$p.o")
    names+=("X($n)")
  done
  smpicxx "${flags[@]}" "-DBROADCASTS(X)=${names[*]}" "$src/tests/segmented/bcast_time.cpp" \
    "${objs[@]}" -o "bcast_time-$p"
  smpirun -np "$p" -platform "$src/examples/platforms/sp2-32.xml" -hostfile hosts \
    --log=root.thres:critical --cfg=smpi/display-timing:no \
    --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 --cfg=network/crosstraffic:0 \
    --cfg=smpi/simulate-computation:no \
    "./bcast_time-$p" $bytes > "times-$p"
  if grep -q WRONG "times-$p"; then
    echo "P=$p: a broadcast delivered wrong data"; cat "times-$p"; status=1
  fi
  declare -A sim=()
  while read -r n _ t _; do sim[${n//_/-}]=$t; done < "times-$p"
  for a in "${algs[@]}"; do
    printf "%4d %-18s %12.0f %12.0f %10.2f %10.2f\n" "$p" "$a" "${model[$a]}" "${sim[$a]}" \
      "$(echo "${model[binomial]} / ${model[$a]}" | bc -l)" \
      "$(echo "${sim[binomial]} / ${sim[$a]}" | bc -l)"
  done
  best=binomial
  for a in "${segmented[@]}"; do
    if (( $(echo "${sim[$a]} >= ${sim[binomial]}" | bc -l) )); then
      echo "P=$p: $a is not faster than binomial under SMPI"; status=1
    fi
    (( $(echo "${model[$a]} < ${model[$best]}" | bc -l) )) && best=$a
  done
  ms=$(echo "${model[binomial]} / ${model[$best]}" | bc -l)
  ss=$(echo "${sim[binomial]} / ${sim[$best]}" | bc -l)
  if (( $(echo "$ss < 0.75 * $ms || $ss > 1.25 * $ms" | bc -l) )); then
    echo "P=$p: the model's best ($best) gains ${ms}x over binomial, SMPI ${ss}x"; status=1
  fi
  unset model sim
done
exit $status
