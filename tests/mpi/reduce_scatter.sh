#!/usr/bin/env bash
# collc's reduce-scatter (MPI_Reduce_scatter_block) in generated code under a
# real MPI library: `recursive-halving` and `direct` built for any operator
# (--commutative false), `ring` for commutative ones, each for 1..8 ranks and
# every size band up to 256 KiB (one collc command each), compiled with the
# flavor's wrapper warning-free (-Werror) into tests/mpi/reduce_scatter.cpp,
# which compares every result with the library's own on communicators of
# every size up to each rank count given.
#
#   reduce_scatter.sh openmpi|mpich <collc> <srcdir> <workdir> <ranks...>
set -euo pipefail
flavor=$1 collc=$2 src=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work"
cd "$work"
for alg in recursive-halving ring direct; do
  commutative=false
  [ "$alg" = ring ] && commutative=true
  "$collc" --machine "$src/examples/machines/pc-cluster.yaml" --collective reduce-scatter \
    --ranks 1:8 --bytes-range 0:262144 --algorithm "$alg" --commutative "$commutative" \
    --emit mpi --mpi-name "${alg//-/_}" -o "${alg//-/_}.cpp"
done
case $flavor in
  openmpi) cxx=mpicxx.openmpi ;;
  mpich) cxx=mpicxx.mpich ;;
  *) echo "reduce_scatter.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
$cxx -std=c++17 -O2 -Wall -Wextra -Werror -I"$src/runtime" recursive_halving.cpp ring.cpp \
  direct.cpp "$src/tests/mpi/reduce_scatter.cpp" -o check
for p in "$@"; do
  case $flavor in
    openmpi) run=(timeout 600 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$p") ;;
    mpich) run=(timeout 600 mpiexec.mpich -np "$p") ;;
  esac
  "${run[@]}" ./check > out 2> err || { tail -n 20 out err; exit 1; }
  grep -q "^reduce_scatter: [0-9]* checks passed$" out || { tail -n 20 out err; exit 1; }
  echo "reduce_scatter ($flavor, $p ranks): $(sed -n 's/^reduce_scatter: //p' out)"
done
