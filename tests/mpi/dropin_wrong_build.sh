#!/usr/bin/env bash
# The drop-in library preloaded into a program of the other MPI library
# (libcollc-mpi-mpich.so into an Open MPI program, libcollc-mpi.so into an
# MPICH program): their ABIs differ, so the library must not touch a call.
# Every collective goes to the program's own MPI library untouched, the
# results are right (tests/mpi/wrong_build.c checks each collective), nothing is served
# by collc, and rank 0 alone says which build to preload instead.
#
#   dropin_wrong_build.sh <libdir> <srcdir> <workdir>
set -euo pipefail
lib=$1 src=$2 work=$3 p=3
rm -rf "$work"
mkdir -p "$work"
cd "$work"
machine=$src/examples/machines/pc-cluster.yaml
ran=0
fail() { echo "dropin_wrong_build.sh: $*"; tail -n 20 out err 2>/dev/null || true; exit 1; }
check() { # what: the program's output in out, err
  local what=$1 n
  n=$(grep -c "results correct$" out || true)
  [ "$n" = "$p" ] || fail "$what: $n of $p ranks report correct results"
  n=$(grep -c "^collc: error: this drop-in library is built for" err || true)
  [ "$n" = 1 ] || fail "$what: said $n times, not once"
  grep -q "preload $2 instead" err || fail "$what: the message does not name $2"
  ! grep -qE "^collc: [a-z_ ]+ '[^']+' on [0-9]+ ranks" err || fail "$what: collc served a call"
  ran=$((ran + 1))
  echo "dropin_wrong_build.sh: $what: every call to the program's library, results correct, said once"
}
if [ -e "$lib/libcollc-mpi-mpich.so" ] && command -v mpicc.openmpi > /dev/null; then
  mpicc.openmpi -O2 -Wall -Wextra -Werror "$src/tests/mpi/wrong_build.c" -o prog-openmpi
  rm -rf ranks
  rc=0
  timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -np $p \
    --output-filename "$PWD/ranks" -x COLLC_MACHINE="$machine" -x COLLC_VERBOSE=1 \
    -x LD_PRELOAD="$lib/libcollc-mpi-mpich.so" ./prog-openmpi > /dev/null 2>&1 || rc=$?
  cat ranks/1/rank.*/stdout > out
  cat ranks/1/rank.*/stderr > err
  [ $rc = 0 ] || fail "the MPICH build in an Open MPI program: exit status $rc"
  check "the MPICH build in an Open MPI program" libcollc-mpi.so
fi
if [ -e "$lib/libcollc-mpi.so" ] && command -v mpicc.mpich > /dev/null; then
  mpicc.mpich -O2 -Wall -Wextra -Werror "$src/tests/mpi/wrong_build.c" -o prog-mpich
  rc=0
  timeout 300 mpiexec.mpich -np $p -genv COLLC_MACHINE "$machine" -genv COLLC_VERBOSE 1 \
    -genv LD_PRELOAD "$lib/libcollc-mpi.so" ./prog-mpich > out 2> err || rc=$?
  [ $rc = 0 ] || fail "the Open MPI build in an MPICH program: exit status $rc"
  check "the Open MPI build in an MPICH program" libcollc-mpi-mpich.so
fi
if [ $ran = 0 ]; then
  echo "dropin_wrong_build.sh: skipped: needs both builds of the drop-in and both MPI libraries"
  exit 77
fi
