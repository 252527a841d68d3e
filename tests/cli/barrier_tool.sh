#!/usr/bin/env bash
# collc-barrier's options: --help documents --cycle-length and its defaults,
# the option reaches the simulator (figure8's CSV, run's header), and a bad
# value or command line is an error with exit status 1.
#
#   barrier_tool.sh COLLC_BARRIER WORK_DIR
set -euo pipefail
tool=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

for args in "--help" "figure8 --help" "run -h"; do
  # shellcheck disable=SC2086
  "$tool" $args >"$work/help.txt" || fail "collc-barrier $args exits $?"
  grep -q -- "--cycle-length T" "$work/help.txt" || fail "collc-barrier $args: no --cycle-length"
done
default=$(sed -n 's/.*Default: \([0-9]*\) for figure8.*/\1/p' "$work/help.txt")
[ -n "$default" ] || fail "--help gives no default cycle length for figure8"

# figure8 uses the documented default, and --cycle-length overrides it.
"$tool" figure8 --runs 5 --csv "$work/default.csv" >/dev/null
"$tool" figure8 --runs 5 --cycle-length 3 --csv "$work/three.csv" >/dev/null
[ "$(head -1 "$work/default.csv" | awk -F, '{print $NF}')" = cycle_length ] ||
  fail "figure8's CSV has no cycle_length column"
for f in default:"$default" three:3; do
  name=${f%%:*} want=${f#*:}
  got=$(tail -n +2 "$work/$name.csv" | awk -F, '{print $NF}' | sort -u)
  [ "$got" = "$want" ] || fail "figure8 ($name): cycle_length '$got', expected '$want'"
done
cmp -s "$work/default.csv" "$work/three.csv" && fail "--cycle-length 3 changed nothing"

"$tool" run --participants 2 --cycle-length 5 >"$work/run.txt"
grep -q "unit 3 cycles of 5 time units" "$work/run.txt" ||
  fail "run --cycle-length 5: $(head -1 "$work/run.txt")"

for bad in 0 1001 x; do
  status=0
  "$tool" run --cycle-length "$bad" >"$work/out.txt" 2>"$work/err.txt" || status=$?
  [ "$status" -eq 1 ] || fail "--cycle-length $bad: exit $status, expected 1"
  want="collc-barrier: error: --cycle-length: expected an integer in [1, 1000], got '$bad'"
  [ "$(cat "$work/err.txt")" = "$want" ] || fail "--cycle-length $bad: $(cat "$work/err.txt")"
done
# Usage errors exit 1 with a diagnostic: no command, an unknown command, an
# option the command does not take.
for args in "" "figures" "figure8 --trace" "--runs 5"; do
  status=0
  # shellcheck disable=SC2086
  "$tool" $args >"$work/out.txt" 2>"$work/err.txt" || status=$?
  [ "$status" -eq 1 ] || fail "collc-barrier $args: exit $status, expected 1"
  [ -s "$work/err.txt" ] || fail "collc-barrier $args: no diagnostic"
done
"$tool" figures 2>"$work/err.txt" || true
grep -q "unknown command 'figures'" "$work/err.txt" ||
  fail "collc-barrier figures: $(cat "$work/err.txt")"
echo "barrier_tool: ok (figure8's default unit cycle: $default time units)"
