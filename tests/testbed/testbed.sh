#!/usr/bin/env bash
# The emulated cluster (scripts/testbed) in the default suite: 4 nodes on
# one switch, Open MPI over TCP between network namespaces, one rank per
# node, with the machine the testbed wrote:
#  - the drop-in library under its test program (tests/mpi/dropin.sh) and
#    the conformance test (tests/mpi/conformance.sh) pass across the nodes;
#  - the testbed goes down after a command that fails and after SIGTERM,
#    and leaves no namespace, state or process behind;
#  - the ranks run on four hosts of their own (host names) whose traffic
#    crossed the shaped links.
# Skipped (77) where network namespaces cannot be made (not root, no ip, tc
# or unshare, a kernel or container without them) or Open MPI is missing.
#
#   testbed.sh <collc> <libdir> <srcdir> <workdir>
set -euo pipefail
collc=$1 lib=$2 src=$3 work=$4
tb=$src/scripts/testbed
skip() { echo "testbed: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to make network namespaces"
for t in ip tc unshare mpirun.openmpi mpicc.openmpi python3; do
  command -v "$t" > /dev/null || skip "no $t"
done
probe=ctbprobe$$
ip netns add "$probe" 2> /dev/null || skip "cannot make a network namespace here"
ip netns del "$probe"

name=ctbtest
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "testbed: $*"; exit 1; }
gone() { # nothing of the testbed left
  ! ip netns list | grep -q "^$name-" || fail "$1: namespaces left: $(ip netns list | grep "^$name-" | tr '\n' ' ')"
  [ ! -e "/run/collc-testbed/$name" ] || fail "$1: its state was left"
}
# Another run of the suite may hold the name: wait for it.
wait_lock=(--name "$name" --wait 300)

rc=0
"$tb" with "${wait_lock[@]}" --nodes 2 -- false 2> with-false.err || rc=$?
[ "$rc" = 1 ] || fail "a failing command under 'with' gave status $rc, expected 1"
gone "after a failing command"

"$tb" with "${wait_lock[@]}" --nodes 2 -- sleep 120 2> with-term.err &
pid=$!
for _ in $(seq 1 600); do
  grep -qs '"complete": true' "/run/collc-testbed/$name/state.json" && break
  sleep 0.1
done
grep -qs '"complete": true' "/run/collc-testbed/$name/state.json" || fail "the testbed did not come up"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 143 ] || fail "'with' under SIGTERM gave status $rc, expected 143"
gone "after SIGTERM"

inside=$work/inside.sh
cat > "$inside" <<INSIDE
set -euo pipefail
cd "$work"
# Four hosts of their own.
"$tb" run -- hostname | sort > hosts.txt
[ "\$(cat hosts.txt | tr '\n' ' ')" = "$name-n0 $name-n1 $name-n2 $name-n3 " ] ||
  { echo "testbed: the ranks ran on: \$(cat hosts.txt | tr '\n' ' ')"; exit 1; }
bash "$src/tests/mpi/dropin.sh" testbed "$lib" "$src" "$work/dropin" 4
bash "$src/tests/mpi/conformance.sh" testbed "$collc" "$src" "$work/conformance" 4
"$tb" status --links > links.txt
INSIDE
"$tb" with "${wait_lock[@]}" --nodes 4 --node-rate 1gbit -- bash "$inside"
gone "after the run"
# The MPI traffic crossed the shaped links: every node sent and received
# megabytes through its link's shaper.
awk '$2 == "node" && ($4 < 1 || $6 < 1) { bad = 1; print "testbed: little traffic on " $1 } END { exit bad }' \
  links.txt || fail "traffic went around the shaped links"
echo "testbed: 4 nodes over TCP: the drop-in and the conformance test pass; down after failure and SIGTERM"
