#!/usr/bin/env bash
# The network evaluator against SMPI: for each case, collc builds the
# schedule on the platform's machine (tests/network/Platforms.h) and the
# evaluator gives its makespan; the generated MPI code then runs under SMPI
# on the platform file itself (--cfg=smpi/simulate-computation:no), timed by
# tests/network/makespan.cpp. Prints one row per case (SMPI µs, evaluator
# µs, error %) and fails when an error exceeds the tolerance.
#
#   smpi_compare.sh COLLC NETCHECK SOURCE_DIR WORK_DIR TOLERANCE_% CASE...
#
# CASE: platform:collective:algorithm:bytes (platform: a file stem in
# examples/platforms). Exits 77 (skipped) without smpicxx.
set -euo pipefail
collc=$1 netcheck=$2 src=$3 work=$4 tol=$5
shift 5
command -v smpicxx >/dev/null && command -v smpirun >/dev/null || {
  echo "smpi_compare: no SMPI; skipped"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
p=256
for i in $(seq 0 $((p - 1))); do echo "node-$i"; done > "$work/hosts"
flags=(-std=c++17 -O1 -w -I"$src/runtime")
export SMPI_PRIVATIZATION=mmap
status=0
printf "%-13s %-10s %-26s %8s %11s %11s %8s\n" platform collective algorithm bytes \
  "smpi µs" "collc µs" "error %"
for c in "$@"; do
  IFS=: read -r plat coll alg bytes <<< "$c"
  d="$work/$plat-$coll-$alg-$bytes"
  mkdir -p "$d"
  if ! out=$("$netcheck" schedule "$plat" "$coll" "$alg" "$bytes" "$d/s.json" 2>&1); then
    printf "%-13s %-10s %-26s %8s  %s\n" "$plat" "$coll" "$alg" "$bytes" "not built: ${out##*: }"
    continue
  fi
  eval_us=$(awk '$1 == "makespan" {print $2}' <<< "$out")
  "$collc" --schedule "$d/s.json" --emit mpi --mpi-name bench -o "$d/g.cpp"
  if [ ! -f "$work/driver-$coll.o" ]; then
    smpicxx "${flags[@]}" -DCOLL_"$coll" -c "$src/tests/network/makespan.cpp" \
      -o "$work/driver-$coll.o" 2>/dev/null
  fi
  smpicxx "${flags[@]}" "$work/driver-$coll.o" "$d/g.cpp" -o "$d/run" 2>/dev/null
  smpi_us=$(ulimit -v "${SMPI_MEMORY_KB:-8000000}"; timeout "${SMPI_LIMIT:-600}" smpirun -np $p -platform "$src/examples/platforms/$plat.xml" \
    -hostfile "$work/hosts" --log=root.thres:critical --cfg=smpi/display-timing:no \
    --cfg=smpi/simulate-computation:no --cfg=smpi/shared-malloc-blocksize:67108864 \
    "$d/run" "$bytes" 2>/dev/null |
    awk '$1 == "makespan" {print $2}') || true
  rm -f "$d/run" "$d/g.cpp"
  if [ -z "$smpi_us" ]; then
    printf "%-13s %-10s %-26s %8s %11s %11.1f  SMPI did not finish (time or memory)\n" \
      "$plat" "$coll" "$alg" "$bytes" - "$eval_us"
    continue
  fi
  err=$(awk -v e="$eval_us" -v s="$smpi_us" 'BEGIN {printf "%.2f", (e - s) / s * 100}')
  flag=
  if awk -v x="$err" -v t="$tol" 'BEGIN {exit !(x > t || x < -t)}'; then
    flag=" > ${tol}%"
    status=1
  fi
  printf "%-13s %-10s %-26s %8s %11.1f %11.1f %8s%s\n" "$plat" "$coll" "$alg" "$bytes" \
    "$smpi_us" "$eval_us" "$err" "$flag"
done
exit $status
