#!/usr/bin/env bash
# The bad-input corpus: every case must fail with exactly the expected
# diagnostic on stderr, exit status 1, nothing on stdout and no output file.
#
# A case is tests/inputs/bad/NAME.{yaml,json,xml} plus NAME.expected (the exact
# stderr, with @DIR@ standing for the corpus folder). The file's first line
# says how to run it:
#   # machine                  the file is the machine spec (a valid request
#                              is given on the command line)
#   # request                  the file is the request (machine: ibm-sp)
#   # request MACHINE          the request, with examples/machines/MACHINE.yaml
#   # args ARGS...             run collc with ARGS (no file of its own)
# A NAME.args file instead of a spec file holds a command line alone. JSON
# files have no comments, and XML (SimGrid platforms) none on the first
# line: NAME's prefix (machine-, request-) says how.
set -u
collc=$1 dir=$2 src=$3
cd "$src" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
run_case() {
  local name=$1 file=$2 expected=$3 how args
  if head -n 1 "$file" | grep -q '^#'; then
    how=$(head -n 1 "$file" | sed -e 's/^# *//')
  else
    how=${name%%-*} # JSON has no comments: the name says machine or request
  fi
  case "$how" in
    machine) args=(--machine "$file" --collective bcast --ranks 4 --bytes 8) ;;
    request) args=(--machine examples/machines/ibm-sp.yaml --request "$file") ;;
    "request "*) args=(--machine "examples/machines/${how#request }.yaml" --request "$file") ;;
    "args "*) eval "args=(${how#args })" ;;
    *) echo "FAIL $name: first line must say machine, request or args"; fail=$((fail+1)); return ;;
  esac
  local out="$tmp/$name.out"
  "$collc" "${args[@]}" -o "$out" >"$tmp/stdout" 2>"$tmp/stderr"
  local rc=$?
  local want
  want=$(sed -e "s|@DIR@|$dir|g" "$expected")
  local got
  got=$(cat "$tmp/stderr")
  if [ "$rc" -ne 1 ]; then
    echo "FAIL $name: exit status $rc, expected 1"; cat "$tmp/stderr"; fail=$((fail+1)); return
  fi
  if [ "$got" != "$want" ]; then
    echo "FAIL $name: diagnostic differs"
    diff <(echo "$want") <(echo "$got")
    fail=$((fail+1)); return
  fi
  if [ -e "$out" ] || ls "$tmp" | grep -q "\.out\.tmp"; then
    echo "FAIL $name: an output file was written"; fail=$((fail+1)); return
  fi
  if [ -s "$tmp/stdout" ]; then
    echo "FAIL $name: wrote to stdout"; fail=$((fail+1)); return
  fi
  pass=$((pass+1))
}
for expected in "$dir"/*.expected; do
  name=$(basename "$expected" .expected)
  file=""
  for ext in yaml json xml args txt; do
    [ -f "$dir/$name.$ext" ] && file="$dir/$name.$ext"
  done
  if [ -z "$file" ]; then echo "FAIL $name: no input file"; fail=$((fail+1)); continue; fi
  run_case "$name" "$file" "$expected"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
