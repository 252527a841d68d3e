#!/usr/bin/env bash
# One run, many requests (docs/cli.md, "Many requests in one run"): every
# form of --collective, --ranks, --root, --bytes and --bytes-range gives one
# schedule per combination (per size band with a range) in one MPI file;
# every bad form fails with exactly its diagnostic, exit 1, nothing on
# stdout and no output file.
. "$(dirname "$0")/checks.sh"
pc=(--machine examples/machines/pc-cluster.yaml)

# good NAME COUNT ARGS...: exit 0, COUNT schedules in the file (- for any).
good() {
  local name=$1 want=$2
  shift 2
  rm -f "$tmp/good.cpp"
  if ! "$collc" "$@" -o "$tmp/good.cpp" 2> "$tmp/good.err"; then
    bad "$name: exit status $?"; cat "$tmp/good.err"; return
  fi
  local got
  got=$(grep -c '^//   [a-z]* .*: [0-9]* ranks' "$tmp/good.cpp")
  [ "$want" = - ] || [ "$got" = "$want" ] && ok || bad "$name: $got schedules, expected $want"
}
good "one of each" 1 "${pc[@]}" --collective bcast --ranks 4 --bytes 8 --emit mpi
good "a range of ranks" 8 "${pc[@]}" --collective bcast --ranks 1:8 --bytes 8 --emit mpi
good "a list of ranks" 3 "${pc[@]}" --collective bcast --ranks 2,3,5 --bytes 8 --emit mpi
good "ranges and numbers" 10 "${pc[@]}" --collective bcast --ranks 1:8,12,16 --bytes 8 --emit mpi
good "every root" 10 "${pc[@]}" --collective bcast --ranks 1:4 --root all --bytes 8 --emit mpi
good "a list of roots" 2 "${pc[@]}" --collective reduce --ranks 5 --root 0,4 --bytes 8 --emit mpi
good "coordinates" 2 --machine examples/machines/mesh-6x6.yaml --collective bcast \
  --ranks 36 --root "(1,2),(3,4)" --bytes 64 --emit mpi
good "a list of sizes" 3 "${pc[@]}" --collective bcast --ranks 4 --bytes 0,8,1024 --emit mpi
good "a list of collectives" 3 "${pc[@]}" --collective bcast,reduce,allreduce --ranks 4 \
  --bytes 64 --emit mpi
good "the product" $((2 * (3 + 4) * 2 + 2 * 2)) "${pc[@]}" --collective gather,scatter,allgather \
  --ranks 3,4 --root all --bytes 8,16 --emit mpi
good "a barrier takes no size" $((2 + 2 * 2)) "${pc[@]}" --collective barrier,alltoall \
  --ranks 2,4 --bytes 8,16 --emit mpi
good "the header" - "${pc[@]}" --collective bcast,scan --ranks 2:5 --bytes 8 --emit mpi-header
[ "$(grep -c "^int collc_" "$tmp/good.cpp")" = 2 ] && ok || bad "the header declares 2 entry points"
good "the preload library" 4 "${pc[@]}" --collective bcast --ranks 2:5 --bytes 8 --emit mpi-preload
good "a single request with --emit json" 1 "${pc[@]}" --collective bcast --ranks 1:1 --bytes 8 --emit mpi
# A request file's fields take the lists of the command line.
good "a request file" 9 "${pc[@]}" --request examples/requests/bcast-9.yaml --ranks 2:4 \
  --root all --emit mpi
good "a file's participants, every root" 10 "${pc[@]}" \
  --request examples/requests/bcast-participants.yaml --root all --bytes 8,16 --emit mpi
grep -q "bcast opt-tree on pc-cluster: 5 ranks, root 4, built for 16 bytes" "$tmp/good.cpp" &&
  ok || bad "the participants' last rank as root"

# A root outside some groups is skipped there, with a note.
good "roots beyond a group" 4 "${pc[@]}" --collective bcast --ranks 2:4 --root 0,3 --bytes 8 --emit mpi
grep -qx "collc: note: bcast: root 3 is not a node of the groups of 2, 3 ranks: skipped there" \
  "$tmp/good.err" && ok || bad "no note for the skipped root"

# --bytes-range: one schedule per band of auto, serving exactly the band.
# --emit select prints the same bands for each combination.
for coll in bcast allreduce alltoall; do
  good "bands of $coll" - "${pc[@]}" --collective $coll --ranks 6 --bytes-range 3:1048576 \
    --emit mpi
  sed -n "s|^//   $coll \([^ ]*\) on pc-cluster: 6 ranks.*serves \([0-9]*\)\.\.\([0-9]*\) bytes.*|\2 \3 \1|p" \
    "$tmp/good.cpp" > "$tmp/served"
  "$collc" "${pc[@]}" --collective $coll --ranks 6 --bytes-range 3:1048576 --emit select |
    awk '!/^#/ {print $1, $2, $3}' > "$tmp/bands"
  [ -s "$tmp/bands" ] && cmp -s "$tmp/served" "$tmp/bands" && ok ||
    { bad "$coll: the file's bands are not auto's"; diff "$tmp/bands" "$tmp/served"; }
done
# --mpi-sizes (which collc_add_schedule always passes) leaves the bands be.
good "bands with --mpi-sizes" 3 "${pc[@]}" --collective bcast --ranks 2:4 \
  --bytes-range 100:200 --algorithm binomial --mpi-sizes exact --emit mpi
[ "$(grep -c "serves 100\.\.200 bytes" "$tmp/good.cpp")" = 3 ] && ok || bad "--mpi-sizes changed the bands"
good "a named algorithm over a range" 1 "${pc[@]}" --collective bcast --ranks 6 \
  --bytes-range 0:4096 --algorithm binomial --emit mpi
grep -q "built for 63 bytes, serves 0\.\.4096 bytes" "$tmp/good.cpp" && ok ||
  bad "a named algorithm's band"

# Progress on stderr for a run longer than a second.
"$collc" --machine examples/machines/torus-16x16-net.yaml --collective bcast \
  --ranks 240:256 --bytes 65536 --emit mpi -o "$tmp/big.cpp" 2> "$tmp/big.err" &&
  grep -q "^collc: [0-9]*/17 requests, [0-9]* schedules$" "$tmp/big.err" && ok ||
  bad "no progress on a long run"

# notok EXPECTED ARGS...: exit 1, exactly EXPECTED on stderr, nothing else.
notok() {
  local want=$1
  shift
  rm -f "$tmp/bad.out"
  "$collc" "$@" -o "$tmp/bad.out" > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$?
  if [ $rc -ne 1 ]; then bad "exit $rc for: $*"; cat "$tmp/stderr"; return; fi
  if [ "$(cat "$tmp/stderr")" != "$want" ]; then
    bad "diagnostic for: $*"; diff <(echo "$want") "$tmp/stderr"; return
  fi
  if [ -e "$tmp/bad.out" ] || ls "$tmp" | grep -q '\.tmp'; then bad "output written: $*"; return; fi
  [ -s "$tmp/stdout" ] && { bad "stdout written: $*"; return; }
  ok
}
b=(--collective bcast --bytes 8 --emit mpi)
notok "collc: error: --ranks: expected a group size in [1, 1048576] or a range LO:HI of them with LO <= HI, got '8:1'" \
  "${pc[@]}" "${b[@]}" --ranks 8:1
notok "collc: error: --ranks: expected a group size in [1, 1048576] or a range LO:HI of them with LO <= HI, got '0:4'" \
  "${pc[@]}" "${b[@]}" --ranks 0:4
notok "collc: error: --ranks: expected a group size in [1, 1048576] or a range LO:HI of them with LO <= HI, got 'a'" \
  "${pc[@]}" "${b[@]}" --ranks 1,a
notok "collc: error: --ranks: expected a group size in [1, 1048576] or a range LO:HI of them with LO <= HI, got '1:99999999999'" \
  "${pc[@]}" "${b[@]}" --ranks 1:99999999999
notok "collc: error: --ranks: expected a list of values separated by commas, got '1,,4'" \
  "${pc[@]}" "${b[@]}" --ranks 1,,4
notok "collc: error: --ranks: expected a list of values separated by commas, got '2,'" \
  "${pc[@]}" "${b[@]}" --ranks 2,
notok "collc: error: --ranks: 3 appears twice in '1:4,3'" "${pc[@]}" "${b[@]}" --ranks 1:4,3
notok "collc: error: bcast on 17 ranks, 8 bytes: --ranks: expected an integer in [1, 16] for 'ranks', got '17'" \
  "${pc[@]}" "${b[@]}" --ranks 1:17
notok "collc: error: --ranks: expected an integer in [1, 16] for 'ranks', got '17'" \
  "${pc[@]}" "${b[@]}" --ranks 17
notok "collc: error: --collective: 'bcast' appears twice in 'bcast,bcast'" \
  "${pc[@]}" --collective bcast,bcast --ranks 4 --bytes 8 --emit mpi
notok "collc: error: foo on 4 ranks, 8 bytes: --collective: unknown collective 'foo'; expected one of: bcast, multicast, reduce, allreduce, scan, exscan, gather, scatter, allgather, alltoall, barrier, reduce-scatter" \
  "${pc[@]}" --collective bcast,foo --ranks 4 --bytes 8 --emit mpi
notok "collc: error: --root: '1' appears twice in '1,2,1'" "${pc[@]}" "${b[@]}" --ranks 4 --root 1,2,1
notok "collc: error: --root: expected a list of values separated by commas, got '1,'" \
  "${pc[@]}" "${b[@]}" --ranks 4 --root 1,
notok "collc: error: bcast on 2 ranks, root x, 8 bytes: --root: expected a node number for 'root', got 'x'" \
  "${pc[@]}" "${b[@]}" --ranks 2:4 --root 3,x
notok "collc: error: bcast on 4 ranks, root 5, 8 bytes: --root: root node 5 is not a participant (the group has 4 ranks)" \
  "${pc[@]}" "${b[@]}" --ranks 2:4 --root 0,5
notok "collc: error: --root: root node 4 is not a participant (the group has 4 ranks)" \
  "${pc[@]}" "${b[@]}" --ranks 4 --root 4
notok "collc: error: --root all: a multicast's group is its source and destinations; give the source with --root" \
  "${pc[@]}" --collective multicast --root all --destinations 1,2 --bytes 8 --emit mpi
notok "collc: error: multicast on 4 ranks, 8 bytes: --ranks: a multicast names its group by 'root' and 'destinations', not 'ranks' or 'participants'" \
  "${pc[@]}" --collective bcast,multicast --ranks 4 --bytes 8 --emit mpi
notok "collc: error: --bytes: '8' appears twice in '8,16,8'" "${pc[@]}" --collective bcast --ranks 4 --bytes 8,16,8 --emit mpi
notok "collc: error: allreduce on 2 ranks, 6 bytes: --bytes: expected 'bytes' to be a multiple of 4 (the size of int32), got 6" \
  "${pc[@]}" --collective allreduce --ranks 2:4 --bytes 8,6 --emit mpi
notok "collc: error: bcast on 4 ranks, -1 bytes: --bytes: expected an integer in [0, 1125899906842624] for 'bytes', got '-1'" \
  "${pc[@]}" --collective bcast --ranks 4 --bytes 8,-1 --emit mpi
notok "collc: error: --bytes and --bytes-range do not go together: give sizes or a range" \
  "${pc[@]}" "${b[@]}" --ranks 2:4 --bytes-range 0:10
notok "collc: error: --bytes-range: expected LO:HI with 0 <= LO <= HI <= 1125899906842624, got '10:0'" \
  "${pc[@]}" --collective bcast --ranks 2:4 --bytes-range 10:0 --emit mpi
notok "collc: error: allreduce on 2 ranks, bytes 1:3: --bytes-range: no multiple of 4 (the size of int32) in [1, 3]" \
  "${pc[@]}" --collective allreduce --ranks 2:4 --bytes-range 1:3 --emit mpi
notok "collc: error: --bytes-range applies only to --emit select, ompi-rules, mpi, mpi-header and mpi-preload" \
  "${pc[@]}" --collective bcast --ranks 4 --bytes-range 0:10 --emit json
notok "collc: error: --emit json takes one request; the options ask for 3: give one value each, or use --emit mpi, mpi-header or mpi-preload" \
  "${pc[@]}" --collective bcast --ranks 2:4 --bytes 8 --emit json
notok "collc: error: --emit summary takes one request; the options ask for 2: give one value each, or use --emit mpi, mpi-header or mpi-preload" \
  "${pc[@]}" --collective bcast --ranks 2 --root all --bytes 8
notok "collc: error: --emit select takes one request; the options ask for 2: give one value each, or use --emit mpi, mpi-header or mpi-preload" \
  "${pc[@]}" --collective bcast --ranks 2:3 --emit select
notok "collc: error: the options ask for 136 requests (every combination of --collective, --ranks, --root and --bytes); at most 100 are allowed: give fewer values, or raise the cap with --max-requests N" \
  "${pc[@]}" "${b[@]}" --ranks 1:16 --root all --max-requests 100
good "the cap raised" 136 "${pc[@]}" "${b[@]}" --ranks 1:16 --root all --max-requests 136
finish
