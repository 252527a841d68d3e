#!/usr/bin/env bash
# MPI semantics under collc's runtime: tests/mpi/conformance.c, an MPI
# program that knows nothing of collc, on P ranks for each P given, run
#  - under a preload library from `collc --emit mpi-preload`: every call is
#    served by a schedule or passed to the MPI library, with results checked;
#    COLLC_VERBOSE must report every call, each fallback with its reason;
#  - compiled with -DCOLLC_DIRECT against `--emit mpi` entry points (no
#    fallback): every call is served or refused with the expected error
#    through the communicator's error handler.
# The schedules, on the PC-cluster model, for every P and every root:
# broadcasts (binomial) of 0, 8, 12 and 16 bytes (MPI_DOUBLE_INT: 12 bytes in
# Open MPI and MPICH, 16 in SMPI); reduces (binomial) of 1000 and
# 2048 bytes, and of 1000 bytes built for a non-commutative operator;
# allreduces of 1000 bytes (binomial, non-commutative) and 2048 bytes
# (reduce-scatter-allgather, and binomial for a non-commutative operator);
# linear scans of 1000 and 2048 bytes; gathers and scatters (binomial) of
# 8-byte blocks; a ring allgather and a Bruck all-to-all of 8-byte blocks; a
# barrier.
#
# Flavor `testbed`: Open MPI across the nodes of the testbed that is up
# (scripts/testbed, $TESTBED_NAME), one rank per node over TCP, the
# schedules built for the machine it wrote ($TESTBED_MACHINE).
#
#   conformance.sh openmpi|mpich|smpi|testbed <collc> <srcdir> <workdir> <P...>
set -euo pipefail
flavor=$1 collc=$2 src=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work/json"
cd "$work"
m=$src/examples/machines/pc-cluster.yaml
[ "$flavor" != testbed ] || m=$TESTBED_MACHINE
for c in reduce allreduce; do
  printf 'collective: %s\nranks: 2\nbytes: 1000\ndatatype: int64\ncommutative: false\nalgorithm: binomial\n' \
    "$c" > "nc-$c.yaml"
done
jobs=()
for p in "$@"; do
  for r in $(seq 0 $((p - 1))); do
    for b in 0 8 12 16; do
      jobs+=("--collective bcast --ranks $p --root $r --bytes $b --algorithm binomial -o json/bcast-$p-$r-$b.json")
    done
    for b in 1000 2048; do
      jobs+=("--collective reduce --ranks $p --root $r --bytes $b --algorithm binomial --datatype int64 -o json/reduce-$p-$r-$b.json")
    done
    jobs+=("--request nc-reduce.yaml --ranks $p --root $r --bytes 1000 -o json/reduce-nc-$p-$r.json")
    for c in gather scatter; do
      jobs+=("--collective $c --ranks $p --root $r --bytes 8 --algorithm binomial -o json/$c-$p-$r.json")
    done
  done
  for b in 1000 2048; do
    jobs+=("--request nc-allreduce.yaml --ranks $p --bytes $b -o json/allreduce-nc-$p-$b.json")
    jobs+=("--collective scan --ranks $p --bytes $b --algorithm linear --datatype int64 -o json/scan-$p-$b.json")
  done
  jobs+=("--collective allreduce --ranks $p --bytes 2048 --algorithm reduce-scatter-allgather --datatype int32 -o json/allreduce-$p.json")
  jobs+=("--collective allgather --ranks $p --bytes 8 --algorithm ring -o json/allgather-$p.json")
  jobs+=("--collective alltoall --ranks $p --bytes 8 --algorithm bruck -o json/alltoall-$p.json")
  jobs+=("--collective barrier --ranks $p -o json/barrier-$p.json")
done
printf '%s\n' "${jobs[@]}" | xargs -P 2 -L 1 "$collc" --machine "$m" --emit json
schedules=$(printf -- "--schedule %s " json/*.json)
"$collc" $schedules --emit mpi-preload --mpi-name conf -o preload.cpp
"$collc" $schedules --emit mpi --mpi-name conf -o direct.cpp
echo "generated ${#jobs[@]} schedules"

flags=(-O2 -Wall -Wextra -Werror)
args=()
inter=1
case $flavor in
  openmpi|testbed)
    cxx=mpicxx.openmpi cc=mpicc.openmpi
    launcher=(mpirun.openmpi --allow-run-as-root --oversubscribe)
    [ "$flavor" != testbed ] || launcher=("$src/scripts/testbed" run --)
    launch() { # launch <P> <env...> -- <program>
      local p=$1 env=()
      shift
      while [ "$1" != -- ]; do env+=(-x "$1"); shift; done
      shift
      timeout 120 "${launcher[@]}" -np "$p" "${env[@]}" "$@"
    }
    ;;
  mpich)
    cxx=mpicxx.mpich cc=mpicc.mpich
    launch() {
      local p=$1 env=()
      shift
      while [ "$1" != -- ]; do env+=(-genv "${1%%=*}" "${1#*=}"); shift; done
      shift
      timeout 300 mpiexec.mpich -np "$p" "${env[@]}" "$@"
    }
    ;;
  smpi)
    cxx=smpicxx cc=smpicc
    args=(--no-intercomm) inter=0 # (SMPI has no intercommunicators)
    for p in "$@"; do
      for i in $(seq 0 $((p - 1))); do echo "node-$i"; done > "hosts-$p"
    done
    launch() {
      local p=$1 env=()
      shift
      while [ "$1" != -- ]; do env+=("$1"); shift; done
      shift
      env "${env[@]}" timeout 300 smpirun -np "$p" -platform "$src/examples/platforms/cluster-256.xml" \
        -hostfile "hosts-$p" --log=root.thres:critical --cfg=smpi/display-timing:no "$@"
    }
    ;;
  *) echo "conformance.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
"$cxx" -std=c++17 "${flags[@]}" -fPIC -I"$src/runtime" -c preload.cpp -o preload.o
"$cxx" -std=c++17 "${flags[@]}" -I"$src/runtime" -c direct.cpp -o direct.o
"$cc" "${flags[@]}" -DCOLLC_DIRECT "$src/tests/mpi/conformance.c" direct.o -o conformance-direct \
  $($cxx -showme:link 2>/dev/null || true) -lstdc++
if [ "$flavor" = smpi ]; then
  # SMPI runs every rank in one process, each with its own copy of the
  # program's globals: the interposers are linked into the program (link-time
  # interposition of MPI_Bcast, ...), not preloaded.
  "$cc" "${flags[@]}" "$src/tests/mpi/conformance.c" preload.o -o conformance-preload -lstdc++
  preload=()
else
  "$cxx" -shared preload.o -o libcollc_conf.so
  "$cc" "${flags[@]}" "$src/tests/mpi/conformance.c" -o conformance-preload
  preload=("LD_PRELOAD=$PWD/libcollc_conf.so")
fi

fail() {
  echo "conformance.sh ($flavor, $p ranks, $mode): $*"
  cat "$out" "$err"
  exit 1
}
# expect <count|+> <regex>: the number of matching lines of collc's report
# (+: at least one).
expect() {
  local n
  n=$(grep -cE "^collc: $2" "$err" || true)
  if [ "$1" = + ]; then [ "$n" -ge 1 ] || fail "no line matches: collc: $2"
  else [ "$n" = "$1" ] || fail "expected $1 lines matching 'collc: $2', saw $n"; fi
}
served="(bcast|reduce|allreduce|scan|gather|scatter|allgather|alltoall|barrier) '[^']*' on [0-9]+ ranks, [0-9]+ bytes"
for p in "$@"; do
  mode=preload out=$PWD/preload-$p.out err=$PWD/preload-$p.err
  launch "$p" COLLC_VERBOSE=1 "${preload[@]}" -- ./conformance-preload "${args[@]}" > "$out" 2> "$err" ||
    fail "the program failed"
  calls=$(sed -n 's/^conformance: \([0-9]*\) calls, results correct$/\1/p' "$out")
  [ -n "$calls" ] || fail "results not correct"
  # Every call rank 0 made is reported (and the final allreduce; the
  # intercommunicator's second group reports its two calls too), each
  # fallback with its reason.
  want=$((calls + 1))
  [ "$p" -ge 2 ] && [ $inter = 1 ] && want=$((want + 2))
  expect "$want" ".*"
  n=$(grep -E "^collc: " "$err" | grep -cvE "^collc: $served|; MPI_[A-Za-z]+ of the MPI library runs$" || true)
  [ "$n" = 0 ] || fail "$n lines of collc's report are neither a schedule nor a fallback"
  expect "$p" "reduce '[^']*' on $p ranks, 1000 bytes, non-commutative operator in rank order$"
  expect 1 "allreduce '[^']*' on $p ranks, 1000 bytes, non-commutative operator in rank order$"
  expect 1 "allreduce '[^']*' on $p ranks, 2048 bytes, non-commutative operator in rank order$"
  expect 1 "allreduce 'reduce-scatter-allgather' on $p ranks, 2048 bytes$"
  expect 2 "scan 'linear' on $p ranks, [0-9]+ bytes, non-commutative operator in rank order$"
  if [ "$p" -ge 3 ]; then
    expect + "the reduce schedule 'binomial' for $p ranks and 2048 bytes needs a commutative operator, and no schedule that folds in rank order fits; MPI_Reduce of the MPI library runs$"
  fi
  for c in gather scatter; do expect "$p" "$c 'binomial' on $p ranks, 8 bytes$"; done
  expect "$p" "bcast 'binomial' on $p ranks, 8 bytes$"
  expect 1 "allgather 'ring' on $p ranks, 8 bytes$"
  expect 1 "alltoall 'bruck' on $p ranks, 8 bytes$"
  expect 1 "bcast 'binomial' on $p ranks, 0 bytes$"
  if [ "$flavor" = smpi ]; then # MPI_DOUBLE_INT: 16 contiguous bytes
    expect 1 "bcast 'binomial' on $p ranks, 16 bytes$"
  else
    expect 1 "bcast 'binomial' on $p ranks, 12 bytes$"
  fi
  # Its MAXLOC allreduce folds whole extents (16 bytes): no schedule of
  # that size.
  expect 1 "no allreduce schedule for $p ranks and 16 bytes; MPI_Allreduce of the MPI library runs$"
  for c in bcast reduce gather; do
    # (MPICH's MPI_PROC_NULL is -1.)
    expect + "$c with root -1, not a rank of the communicator of $p ranks; MPI_[A-Za-z]+ of the MPI library runs$"
    expect 1 "$c with root $p, not a rank of the communicator of $p ranks; MPI_[A-Za-z]+ of the MPI library runs$"
  done
  if [ "$p" -ge 2 ] && [ $inter = 1 ]; then
    expect 2 "bcast on an intercommunicator .*; MPI_Bcast of the MPI library runs$"
    expect 2 "barrier on an intercommunicator .*; MPI_Barrier of the MPI library runs$"
  fi

  mode=direct out=$PWD/direct-$p.out err=$PWD/direct-$p.err
  launch "$p" COLLC_VERBOSE=1 -- ./conformance-direct "${args[@]}" > "$out" 2> "$err" || fail "the program failed"
  grep -q "^conformance: [0-9]* calls, results correct$" "$out" || fail "results not correct"
  # (SMPI's datatype sizes wrap at 4 GiB.)
  [ "$flavor" = smpi ] || expect 1 "no bcast schedule for $p ranks and 4294967296 bytes$"
  # MPI_DOUBLE_INT's MAXLOC allreduce: 16 bytes, a size no schedule has.
  expect 1 "no allreduce schedule for $p ranks and 16 bytes$"
  echo "$flavor, $p ranks: $calls calls, every one served correctly or passed on with its reason"
done
