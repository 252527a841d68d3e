#!/usr/bin/env bash
# What a non-blocking collective overlaps with computation, collc's drop-in
# against the MPI library's own non-blocking collectives (bench/mpi/overlap.c:
# the call + compute + MPI_Wait against their sum; overlap 100% when the call
# costs nothing beyond the computation). Under Open MPI and MPICH, P ranks
# (default 2) on this host, with the computation calling MPI_Test 0 and 100
# times along the way; every cell is the median of 3 launches (each the
# median of --iters iterations). The host is shared with other work: read
# the figures with their noise.
#
#   bench/mpi/overlap.sh [P] [iterations]
set -euo pipefail
p=${1:-2} iters=${2:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=$root/build/lib
machine=$root/examples/machines/pc-cluster.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mpicc.openmpi -O2 -Wall -Wextra -Werror "$root/bench/mpi/overlap.c" -o overlap-openmpi
mpicc.mpich -O2 -Wall -Wextra -Werror "$root/bench/mpi/overlap.c" -o overlap-mpich
launch() { # <mpi> <label> <tests>
  local mpi=$1 label=$2 tests=$3 env=()
  if [ "$mpi" = openmpi ]; then
    [ "$label" = collc ] && env=(-x COLLC_MACHINE="$machine" -x LD_PRELOAD="$lib/libcollc-mpi.so")
    nice mpirun.openmpi --allow-run-as-root --oversubscribe -np "$p" "${env[@]}" \
      ./overlap-openmpi "$label" --iters "$iters" --test "$tests"
  else
    [ "$label" = collc ] && env=(-genv COLLC_MACHINE "$machine" -genv LD_PRELOAD "$lib/libcollc-mpi-mpich.so")
    nice mpiexec.mpich -np "$p" "${env[@]}" ./overlap-mpich "$label" --iters "$iters" --test "$tests"
  fi
}
echo "overlap on $p ranks, median of 3 launches of $iters iterations each (µs)"
printf '%-8s %-6s %-11s %9s %5s %10s %10s %10s %10s %8s\n' mpi library collective bytes tests \
  "comm" "compute" "total" "sum" overlap
for mpi in openmpi mpich; do
  for tests in 0 100; do
    for label in mpi collc; do
      for run in 1 2 3; do launch "$mpi" "$label" "$tests" | tail -n +2 > "run.$run"; done
      # Row by row, the median of each column over the three launches.
      paste -d' ' run.1 run.2 run.3 | awk -v mpi="$mpi" '
        function med(a, b, c) { return a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)) }
        { n = 9; printf "%-8s %-6s %-11s %9d %5d %10.1f %10.1f %10.1f %10.1f %7.1f%%\n", mpi, $1, $2, $3, $4,
            med($5, $(5+n), $(5+2*n)), med($6, $(6+n), $(6+2*n)), med($7, $(7+n), $(7+2*n)),
            med($8, $(8+n), $(8+2*n)), med($9+0, $(9+n)+0, $(9+2*n)+0) }'
    done
  done
done
