#!/usr/bin/env bash
# collc's software barriers under real MPI: generate MPI code for the
# dissemination, tree and gather-broadcast barriers at several communicator
# sizes, compile it with -Wall -Wextra -Werror and run mpi_barrier_check under
# Open MPI (and SMPI when present). The preload variant interposes
# MPI_Barrier with the dissemination barrier.
#
#   run_mpi_barrier.sh openmpi|smpi <collc> <srcdir> <workdir> <P...>
set -euo pipefail
mode=$1 collc=$2 src=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work/json"
machine=$src/examples/machines/min64.yaml
for p in "$@"; do
  for alg in dissemination tree gather-broadcast; do
    "$collc" --machine "$machine" --collective barrier --ranks "$p" --root $((p / 2)) \
      --algorithm "$alg" --emit json -o "$work/json/$alg-$p.json"
  done
done
for alg in dissemination tree gather-broadcast; do
  name=${alg//-/_}
  "$collc" $(printf -- "--schedule %s " "$work"/json/$alg-*.json) --emit mpi \
    --mpi-name "$name" -o "$work/$name.cpp"
done
"$collc" $(printf -- "--schedule %s " "$work"/json/dissemination-*.json) --emit mpi-preload \
  --mpi-name preload -o "$work/preload.cpp"

flags=(-std=c++17 -O2 -Wall -Wextra -Werror -I"$src/runtime")
case $mode in
  openmpi) cxx=mpicxx.openmpi ;;
  smpi) cxx=smpicxx ;;
  *) echo "run_mpi_barrier.sh: unknown mode $mode" >&2; exit 2 ;;
esac
objs=()
for name in dissemination tree gather_broadcast; do
  "$cxx" "${flags[@]}" -c "$work/$name.cpp" -o "$work/$name.o"
  objs+=("$work/$name.o")
done
"$cxx" "${flags[@]}" -c "$work/preload.cpp" -o "$work/preload.o"
nm "$work/preload.o" > "$work/preload.syms"
grep -Eq ' [TW] MPI_Barrier$' "$work/preload.syms" || {
  echo "the preload object does not define MPI_Barrier" >&2
  exit 1
}
"$cxx" "${flags[@]}" "$src/tests/barrier/mpi_barrier_check.cpp" "${objs[@]}" -o "$work/check"
"$cxx" "${flags[@]}" "$src/tests/barrier/mpi_barrier_check.cpp" "${objs[@]}" "$work/preload.o" \
  -o "$work/check-preload"
for p in "$@"; do
  if [ "$mode" = smpi ]; then
    for i in $(seq 0 $((p - 1))); do echo "node-$i"; done > "$work/hosts-$p"
    for prog in check "check-preload --mpi-barrier"; do
      smpirun -np "$p" -platform "$src/examples/platforms/cluster-256.xml" \
        -hostfile "$work/hosts-$p" --log=root.thres:critical --cfg=smpi/display-timing:no \
        "$work"/$prog
    done
  else
    timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$p" "$work/check"
    timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$p" \
      "$work/check-preload" --mpi-barrier
  fi
done
