#!/usr/bin/env bash
# The Open MPI drop-in library with a COLLC_MACHINE it must not read: a FIFO
# (no writer: reading would hang every rank), /dev/zero (reading would
# never end), a directory, a sparse file over the 256 MiB limit, a missing
# file. Each time the program (tests/mpi/unmodified.c) runs to the end with
# correct results from the MPI library's own collectives, at once, and rank
# 0 says once, without COLLC_VERBOSE, why collc serves nothing.
#
#   dropin_machine_files.sh <libdir> <srcdir> <workdir>
set -uo pipefail
lib=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
mpicc.openmpi -O2 -Wall -Wextra -Werror "$src/tests/mpi/unmodified.c" -o unmodified || exit 1
mkfifo fifo
mkdir dir
truncate -s 300M big.yaml
status=0
check() { # path, what collc must say about it
  local path=$1 what=$2 rc=0 t0 t1
  t0=$(date +%s)
  timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -np 4 \
    -x COLLC_MACHINE="$path" -x LD_PRELOAD="$lib/libcollc-mpi.so" ./unmodified \
    > out 2> err || rc=$?
  t1=$(date +%s)
  local want="collc: error: COLLC_MACHINE: $path: error: $what"
  local said
  said=$(grep -cxF "$want" err)
  if [ $rc -ne 0 ]; then
    echo "FAIL $path: exit status $rc"; head -5 out err; status=1
  elif ! grep -qx "unmodified: results correct" out; then
    echo "FAIL $path: results not correct"; cat out; status=1
  elif [ "$said" != 1 ]; then
    echo "FAIL $path: '$want' said $said times"; head -5 err; status=1
  elif ! grep -qx "collc: every collective runs in the MPI library" err; then
    echo "FAIL $path: no word that the MPI library serves every call"; status=1
  else
    echo "ok   $path: falls back in $((t1 - t0)) s: $what"
  fi
}
check "$PWD/fifo" "is a FIFO; expected a regular file"
check /dev/zero "is a character device; expected a regular file"
check "$PWD/dir" "is a directory; expected a regular file"
check "$PWD/big.yaml" "is 300 MiB, more than the 256 MiB an input may be"
check "$PWD/missing.yaml" "cannot read file: No such file or directory"
exit $status
