#!/usr/bin/env bash
# tests/mpi/semantics.c under one MPI library alone, then under collc's
# drop-in library with a network platform as the machine (a 4x4 torus: the
# topology builders and the network evaluator choose), on a few numbers of
# ranks: the program checks its own results, so both runs must report no
# failure.
#
#   semantics.sh openmpi|mpich <libdir> <srcdir> <workdir> <P...>
set -euo pipefail
flavor=$1 lib=$2 src=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work"
cd "$work"
machine=$src/examples/platforms/torus-4x4.xml
case $flavor in
  openmpi)
    mpicc.openmpi -O2 -Wall -Wextra -Werror "$src/tests/mpi/semantics.c" -o semantics -lm
    run() { # P, then extra mpirun options
      local p=$1
      shift
      timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$p" "$@" ./semantics
    }
    preload=(-x COLLC_MACHINE="$machine" -x LD_PRELOAD="$lib/libcollc-mpi.so")
    ;;
  mpich)
    mpicc.mpich -O2 -Wall -Wextra -Werror "$src/tests/mpi/semantics.c" -o semantics -lm
    run() {
      local p=$1
      shift
      timeout 300 mpiexec.mpich -np "$p" "$@" ./semantics
    }
    preload=(-genv COLLC_MACHINE "$machine" -genv LD_PRELOAD "$lib/libcollc-mpi-mpich.so")
    ;;
  *)
    echo "semantics.sh: unknown MPI '$flavor'" >&2
    exit 2
    ;;
esac
status=0
for p in "$@"; do
  for mode in alone collc; do
    opts=()
    [ "$mode" = collc ] && opts=("${preload[@]}")
    if out=$(run "$p" "${opts[@]}" 2>&1) && grep -q "semantics: .* 0 failures" <<< "$out"; then
      echo "ok   $flavor $mode P=$p: $(grep semantics: <<< "$out")"
    else
      echo "FAIL $flavor $mode P=$p:"
      echo "$out" | head -30
      status=1
    fi
  done
done
exit $status
