#!/usr/bin/env bash
# Non-blocking and persistent collectives under the drop-in library
# (tests/mpi/nonblocking.c: blocking, non-blocking and persistent calls
# mixed on MPI_COMM_WORLD and split communicators, ten in flight at once,
# completed out of order among the program's own messages). The program
# checks its results, without the library and under it; with COLLC_VERBOSE=1
# every call it made as rank 0 of a communicator is reported served by a
# collc schedule, in its form (`collc: allreduce ...`, `collc: iallreduce
# ...`, `collc: allreduce_init ...`, `collc: MPI_Start of allreduce_init
# ...`), none passed to the MPI library but those with a user-defined operator
# (with their reason). Under SMPI (no MPI_Comm_idup, no
# persistent collectives) the blocking calls are served and every
# non-blocking one is passed to SMPI with that reason.
#
# With a seed (a number, or `random`: one drawn and printed), the program
# draws each round's count and roots from it.
#
# Under Open MPI and MPICH the program then runs once more with
# MPI_THREAD_MULTIPLE: every non-blocking and persistent call is passed to the
# MPI library with that reason (collc moves its runs on from one thread at a
# time), with the same results.
#
#   nonblocking.sh openmpi|mpich|smpi <libdir> <srcdir> <workdir> <ranks> <rounds> [seed]
set -euo pipefail
flavor=$1 lib=$2 src=$3 work=$4 p=$5 rounds=$6 seed=${7:-0} threads=
[ "$seed" != random ] || seed=$((RANDOM * 32768 + RANDOM + 1))
[ "$seed" = 0 ] || echo "nonblocking.sh: seed $seed"
source "$src/tests/mpi/ranks.sh"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
case $flavor in
  openmpi)
    export COLLC_MACHINE=$src/examples/machines/pc-cluster.yaml
    mpicc.openmpi -O2 -Wall -Wextra -Werror "$src/tests/mpi/nonblocking.c" -o nonblocking
    run() {
      joined_openmpi 120 mpirun.openmpi --allow-run-as-root --oversubscribe :: \
        -np "$p" -x COLLC_MACHINE "$@" ./nonblocking "$rounds" "$seed" $threads
    }
    preload=(-x COLLC_VERBOSE=1 -x LD_PRELOAD="$lib/libcollc-mpi.so")
    ;;
  mpich)
    machine=$src/examples/machines/pc-cluster.yaml
    mpicc.mpich -O2 -Wall -Wextra -Werror "$src/tests/mpi/nonblocking.c" -o nonblocking
    run() { joined_mpich 120 -np "$p" -genv COLLC_MACHINE "$machine" "$@" ./nonblocking "$rounds" "$seed" $threads; }
    preload=(-genv COLLC_VERBOSE 1 -genv LD_PRELOAD "$lib/libcollc-mpi-mpich.so")
    ;;
  smpi)
    machine=$src/examples/platforms/cluster-256.xml
    smpi_programs "$src/tests/mpi/nonblocking.c" nonblocking "$lib" "$p"
    run() {
      local prog=./nonblocking-plain
      [ $# -gt 0 ] && prog=./nonblocking
      timeout 120 env COLLC_MACHINE="$machine" LD_LIBRARY_PATH="$lib" "$@" \
        smpirun -np "$p" -platform "$machine" -hostfile hosts --log=root.thres:critical \
        --cfg=smpi/display-timing:no --cfg=smpi/privatize-libs:libcollc-mpi-smpi.so \
        --cfg=smpi/tmpdir:"$PWD" \
        "$prog" "$rounds" "$seed"
    }
    preload=(COLLC_VERBOSE=1)
    ;;
  *) echo "nonblocking.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
fail() { echo "nonblocking.sh ($flavor, $p ranks): $*"; tail -n 30 out err 2>/dev/null || true; exit 1; }
correct() { # the file of the program's output: every rank says so
  local n
  n=$(grep -c "^nonblocking: .* results correct$" "$1" || true)
  [ "$n" = "$p" ]
}
run > plain.out 2> plain.err || fail "the program failed without the library"
correct plain.out || fail "wrong results without the library"
! grep -q "^collc:" plain.err || fail "collc spoke without the library"
run "${preload[@]}" > out 2> err || fail "the program failed under the library"
correct out || fail "wrong results under the library"
# What the program made, as rank 0 of each communicator, and what collc said.
sum() { awk -v f="$1" '/^nonblocking: .* results correct$/ { n += $f } END { print n + 0 }' out; }
blocking=$(sum 2) nonblocking=$(sum 4) inits=$(sum 6) starts=$(sum 8) userop=$(sum 10)
colls='(bcast|reduce|allreduce|scan|exscan|gather|scatter|allgather|alltoall|barrier)'
said() { grep -cE "$1" err || true; }
b=$(said "^collc: $colls '[^']+' on [0-9]+ ranks")
n=$(said "^collc: i$colls '[^']+' on [0-9]+ ranks")
i=$(said "^collc: ${colls}_init '[^']+' on [0-9]+ ranks")
s=$(said "^collc: MPI_Start of ${colls}_init '[^']+' on [0-9]+ ranks")
! grep -q "^collc: error" err || fail "collc reported errors"
# A user-defined operator is passed on, with the reason, in every flavor.
u=$(said "^collc: a user-defined operator may be freed before the call completes, and collc cannot hold it; MPI_Iallreduce of the MPI library runs$")
[ "$u" = "$userop" ] || fail "$userop calls with a user operator, $u passed on with the reason"
[ "$b" = "$blocking" ] || fail "$blocking blocking calls, $b reported served"
if [ "$flavor" = smpi ]; then
  passed=$(said "^collc: SMPI 3.32 has no MPI_Comm_idup, .*; MPI_I[a-z]+ of the MPI library runs$")
  [ "$passed" = "$nonblocking" ] || fail "$nonblocking non-blocking calls, $passed passed to SMPI with the reason"
  [ "$inits$starts$n$i$s" = 00000 ] || fail "persistent calls or served non-blocking ones under SMPI"
  echo "nonblocking (smpi, $p ranks): $blocking blocking calls served, $nonblocking non-blocking ones passed to SMPI (no MPI_Comm_idup), results correct"
  exit 0
fi
others=$(grep -v "user-defined operator" err | grep -c "of the MPI library runs$" || true)
[ "$others" = 0 ] || { grep "of the MPI library runs$" err | sort | uniq -c | head; fail "$others calls passed to the MPI library"; }
[ "$n" = "$nonblocking" ] || fail "$nonblocking non-blocking calls, $n reported served"
[ "$i" = "$inits" ] || fail "$inits persistent calls made, $i reported served"
[ "$s" = "$starts" ] || fail "$starts persistent starts, $s reported served"
[ "$inits" -gt 0 ] || fail "no persistent call was made (the MPI library has them)"
# MPI_THREAD_MULTIPLE: what would be served is passed on, with the reason.
threads=multiple
run "${preload[@]}" > multiple.out 2> multiple.err || fail "the program failed with MPI_THREAD_MULTIPLE"
n=$(grep -c "^nonblocking: .* results correct$" multiple.out || true)
[ "$n" = "$p" ] || fail "with MPI_THREAD_MULTIPLE: $n of $p ranks report correct results"
if grep -q "^nonblocking: with MPI_THREAD_MULTIPLE$" multiple.out; then
  t=$(grep -cE "^collc: the program runs with MPI_THREAD_MULTIPLE, .*; MPI(X)?_[A-Za-z_]+ of the MPI library runs$" multiple.err || true)
  [ "$t" = $((nonblocking + userop + inits)) ] ||
    fail "with MPI_THREAD_MULTIPLE: $t calls passed on with the reason, not $((nonblocking + userop + inits))"
  ! grep -qE "^collc: (MPI_Start of )?(i$colls|${colls}_init) '" multiple.err ||
    fail "with MPI_THREAD_MULTIPLE: a non-blocking or persistent call was served"
  echo "nonblocking ($flavor): with MPI_THREAD_MULTIPLE, $t non-blocking and persistent calls passed on with the reason, results correct"
else
  echo "nonblocking ($flavor): the MPI library does not provide MPI_THREAD_MULTIPLE; not checked"
fi
echo "nonblocking ($flavor, $p ranks, $rounds rounds): served $blocking blocking, $nonblocking non-blocking, $inits persistent calls and $starts starts; $userop with a user operator passed on; results correct"
