#!/usr/bin/env bash
# The drop-in library (Open MPI) against a hostile writer of its cache
# directory. A first run of tests/mpi/dropin.c writes the cache; then, for
# each way of damaging a schedule (cache-plant: a send turned into a
# receive, another root, an empty schedule, a wrong peer, a rank sending to
# itself, zero-byte messages, 2^40 chunks, copy and combine exchanged, an
# algorithm name with terminal escapes), every file is rewritten with its
# checksum recomputed and the program runs again: its results must be right,
# every call served, the damage said once on rank 0 without COLLC_VERBOSE
# ("is not used"), and nothing raw from a file printed. Then the special
# files: a FIFO, a link to /dev/zero, a directory in a file's place; and a
# directory others may write.
#
#   hostile_cache.sh <libdir> <cache-plant> <srcdir> <workdir> <ranks> [all]
#
# Without `all`, three of the damages (swap, empty, algorithm) and the run
# after only the first; with it, every damage and a run after each.
set -euo pipefail
lib=$1 plant=$2 src=$3 work=$4 p=$5 which=${6:-some}
rm -rf "$work"
mkdir -p "$work"
cd "$work"
mpicc.openmpi -O2 -Wall -Wextra -Werror "$src/tests/mpi/dropin.c" -o dropin
export COLLC_MACHINE=$src/examples/machines/pc-cluster.yaml
run() { # run CACHE-DIR [mpirun args...]: stdout, stderr joined per rank
  local dir=$1 rc=0
  shift
  rm -rf ranks
  timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -np "$p" \
    --output-filename "$PWD/ranks" -x COLLC_MACHINE -x COLLC_CACHE="$dir" \
    -x LD_PRELOAD="$lib/libcollc-mpi.so" "$@" ./dropin > /dev/null 2>&1 || rc=$?
  cat ranks/1/rank.*/stdout
  cat ranks/1/rank.*/stderr >&2
  return $rc
}
fail() { echo "hostile_cache.sh: $*"; tail -n 20 err 2>/dev/null || true; exit 1; }
check() { # check WHAT: results right on every rank, nothing crashed
  local n
  n=$(grep -c "results correct$" out || true)
  [ "$n" = "$p" ] || fail "$1: $n of $p ranks report correct results"
  ! grep -q $'\x1b' err || fail "$1: an escape sequence reached the terminal"
}
mkdir -m 700 good
run "$PWD/good" > out 2> err || fail "the first run failed"
check "writing the cache"
files=$(find good -name 'collc-*.schedule' | wc -l)
[ "$files" -gt 0 ] || fail "no cache file written"
damages=(swap empty algorithm)
[ "$which" != all ] || damages=(swap root empty peer self zero chunks combine algorithm)
for how in "${damages[@]}"; do
  rm -rf cache && cp -a good cache
  "$plant" cache "$how" > /dev/null
  run "$PWD/cache" > out 2> err || fail "$how: the program failed"
  check "$how"
  notes=$(grep -c "^collc: note: the cache file .* is not used" err || true)
  [ "$notes" -ge 1 ] || fail "$how: the damage was not said"
  # Rebuilt and rewritten: a run after it reads every file again.
  if [ "$which" = all ] || [ "$how" = swap ]; then
    run "$PWD/cache" > out 2> err || fail "$how: the run after it failed"
    check "$how, run after"
    ! grep -q "is not used" err || fail "$how: the rebuilt files were not good"
  fi
  echo "hostile cache ($how): refused, said, rebuilt; results correct"
done
# Special files where cache files belong: refused at once, no hang.
rm -rf cache && cp -a good cache
set -- cache/collc-*.schedule
rm -f "$1" "$2" "$3"
mkfifo "$1"
ln -s /dev/zero "$2"
mkdir "$3"
run "$PWD/cache" > out 2> err || fail "special files: the program failed"
check "special files"
grep -q "is not used" err || fail "special files: not said"
echo "hostile cache (a FIFO, a link to /dev/zero, a directory): refused at once; results correct"
# A directory others may write: not used, said once.
mkdir -m 777 open
run "$PWD/open" > out 2> err || fail "open directory: the program failed"
check "open directory"
grep -q "^collc: note: COLLC_CACHE: .* may be written by other users" err ||
  fail "open directory: not said"
[ -z "$(ls open)" ] || fail "open directory: files were written into it"
echo "hostile cache (a directory others may write): not used, said; results correct"
