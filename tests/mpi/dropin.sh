#!/usr/bin/env bash
# The drop-in library (libcollc-mpi*.so) under an unmodified MPI program
# (tests/mpi/dropin.c: every collective collc serves, every root, 0 to 4 MiB,
# MPI_IN_PLACE, a non-commutative operator on a derived datatype, strided
# datatypes, split communicators of odd sizes), with COLLC_VERBOSE: the
# results are right, and every call the program made is reported served by
# a collc schedule (one line per call from rank 0 of its communicator),
# none passed to the MPI library.
#
#   dropin.sh openmpi|mpich|smpi <libdir> <srcdir> <workdir> <ranks>
set -euo pipefail
flavor=$1 lib=$2 src=$3 work=$4 p=$5
rm -rf "$work"
mkdir -p "$work"
cd "$work"
case $flavor in
  openmpi)
    machine=$src/examples/machines/pc-cluster.yaml
    mpicc.openmpi -O2 -Wall -Wextra -Werror "$src/tests/mpi/dropin.c" -o dropin
    export COLLC_MACHINE=$machine
    run() {
      timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$p" \
        -x COLLC_MACHINE "$@"
    }
    preload=(-x COLLC_VERBOSE=1 -x LD_PRELOAD="$lib/libcollc-mpi.so")
    ;;
  mpich)
    machine=$src/examples/machines/pc-cluster.yaml
    mpicc.mpich -O2 -Wall -Wextra -Werror "$src/tests/mpi/dropin.c" -o dropin
    run() {
      timeout 300 mpiexec.mpich -np "$p" -genv COLLC_MACHINE "$machine" "$@"
    }
    preload=(-genv COLLC_VERBOSE 1 -genv LD_PRELOAD "$lib/libcollc-mpi-mpich.so")
    ;;
  smpi)
    # SMPI runs every rank in one process: the library is linked into the
    # program (before SimGrid, so that its MPI_* come first) and privatized,
    # one copy per rank as MPI processes have (smpi/privatize-libs, found on
    # LD_LIBRARY_PATH). The machine is the simulated platform itself.
    machine=$src/examples/platforms/cluster-256.xml
    for i in $(seq 0 $((p - 1))); do echo "node-$i"; done > hosts
    smpicc -O2 -Wall -Wextra "$src/tests/mpi/dropin.c" -o dropin-plain
    smpicc -O2 -Wall -Wextra "$src/tests/mpi/dropin.c" -o dropin \
      -Wl,--no-as-needed -L"$lib" -Wl,-rpath,"$lib" -lcollc-mpi-smpi
    run() {
      local env=() prog=./dropin-plain
      while [ $# -gt 0 ] && [ "$1" != -- ]; do env+=("$1"); prog=./dropin; shift; done
      timeout 300 env COLLC_MACHINE="$machine" LD_LIBRARY_PATH="$lib" "${env[@]}" \
        smpirun -np "$p" -platform "$machine" -hostfile hosts --log=root.thres:critical \
        --cfg=smpi/display-timing:no --cfg=smpi/privatize-libs:libcollc-mpi-smpi.so "$prog"
    }
    preload=(COLLC_VERBOSE=1 --)
    ;;
  *) echo "dropin.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
fail() { echo "dropin.sh ($flavor, $p ranks): $*"; tail -n 30 out err 2>/dev/null || true; exit 1; }
# Without the library: the MPI library's own collectives. Open MPI's pass
# the program's checks. SMPI 3.32's get some of it wrong (a non-commutative
# MPI_Scan and MPI_Exscan of 512 Ki pairs on 6 ranks fold out of order; an
# in-place MPI_Alltoall on 3 ranks aborts) and MPICH 4.0's MPI_Reduce of
# 4 MiB with MPI_IN_PLACE at the root crashes a non-root rank: there the
# plain run only must not hear from collc.
if [ "$flavor" = smpi ]; then
  run > plain.out 2> plain.err || plain=failed
else
  run ./dropin > plain.out 2> plain.err || plain=failed
fi
if [ "${plain:-}" = failed ]; then
  [ "$flavor" != openmpi ] || fail "the program failed without the library"
  echo "dropin.sh: note: the $flavor library's own collectives fail this program"
fi
! grep -q "^collc:" plain.err || fail "collc spoke without the library"
if [ "$flavor" = smpi ]; then
  run "${preload[@]}" > out 2> err || fail "the program failed under the library"
else
  run "${preload[@]}" ./dropin > out 2> err || fail "the program failed under the library"
fi
n=$(grep -c "^dropin: [0-9]* calls as rank 0, results correct$" out || true)
[ "$n" = "$p" ] || fail "$n of $p ranks report correct results"
calls=$(awk '/^dropin: [0-9]+ calls/ { n += $2 } END { print n + 0 }' out)
served=$(grep -cE "^collc: [a-z]+ '[^']+' on [0-9]+ ranks" err || true)
passed=$(grep -c "of the MPI library runs$" err || true)
errors=$(grep -c "^collc: error" err || true)
[ "$passed" = 0 ] || { grep "of the MPI library runs$" err | sort | uniq -c | head; fail "$passed calls passed to the MPI library"; }
[ "$errors" = 0 ] || fail "collc reported errors"
[ "$served" = "$calls" ] || fail "the program made $calls calls, collc reports $served served"
kinds=$(grep -oE "^collc: [a-z]+ '[^']+'" err | sed 's/^collc: //' | sort -u | paste -sd, -)
echo "dropin ($flavor, $p ranks): $calls calls, all served by collc: $kinds"
