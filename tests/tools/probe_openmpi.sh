#!/usr/bin/env bash
# collc-probe under Open MPI on this host (oversubscribed): with 2 and 4
# processes in --quick mode it writes a spec that reads as YAML with the
# agreed keys and finite fit errors; with one process, or an unknown option,
# it says why, exits 1 and writes nothing.
#
#   probe_openmpi.sh run|usage <collc-probe> <srcdir> <workdir> [mpirun]
set -uo pipefail
mode=$1 probe=$2 src=$3 work=$4
mpirun=("${5:-mpirun}" --allow-run-as-root --oversubscribe)
rm -rf "$work"
mkdir -p "$work"
cd "$work"
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

if [ "$mode" = run ]; then
  for p in 2 4; do
    start=$(date +%s)
    if "${mpirun[@]}" -np "$p" "$probe" --quick -o "m$p.yaml" 2> "err$p"; then ok; else
      bad "$p processes: exit status $?"; cat "err$p"; continue
    fi
    echo "P=$p: $(( $(date +%s) - start )) s"
    grep -q "collc-probe: ping-pong with rank 1" "err$p" && ok || bad "$p processes: no progress on stderr"
    if python3 "$src/tests/tools/probe_check.py" "m$p.yaml"; then ok; else
      bad "$p processes: the spec"; cat "m$p.yaml"
    fi
    grep -q "processes: $p," "m$p.yaml" || grep -q "$p processes on" "m$p.yaml" && ok ||
      bad "$p processes: the spec does not say how many processes ran"
  done
else
  out=$("${mpirun[@]}" -np 1 "$probe" -o one.yaml 2>&1)
  status=$?
  [ "$status" -eq 1 ] && ok || bad "one process: exit status $status, expected 1"
  grep -q "collc-probe: error: needs at least 2 processes" <<< "$out" && ok ||
    bad "one process: no diagnostic: $out"
  [ ! -e one.yaml ] && ok || bad "one process: wrote one.yaml"
  out=$("${mpirun[@]}" -np 2 "$probe" --frob -o frob.yaml 2>&1)
  status=$?
  [ "$status" -eq 1 ] && ok || bad "unknown option: exit status $status, expected 1"
  grep -q "collc-probe: error: unknown option '--frob' (see --help)" <<< "$out" && ok ||
    bad "unknown option: no diagnostic: $out"
  [ ! -e frob.yaml ] && ok || bad "unknown option: wrote frob.yaml"
  out=$("$probe" --help 2>&1)
  status=$?
  [ "$status" -eq 0 ] && grep -q -- "--topology T" <<< "$out" && ok || bad "--help: status $status"
  ls "$work"/*.tmp* > /dev/null 2>&1 && bad "a temporary file was left behind" || ok
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
