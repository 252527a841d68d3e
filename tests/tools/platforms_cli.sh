#!/usr/bin/env bash
# collc-platforms on the command line: the same seed writes the same files
# and prints the seed and the command that draws them again; without a seed
# it draws one and prints it; bad options are exit status 1 with a message
# naming what was expected, and nothing is written.
#
#   platforms_cli.sh COLLC_PLATFORMS WORK_DIR
set -euo pipefail
draw=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
fail() { echo "platforms-cli: $*"; exit 1; }

"$draw" --seed 42 --count 5 --out "$work/a" > "$work/a.tsv"
"$draw" --seed 42 --count 3 --first 2 --out "$work/b" > "$work/b.tsv"
head -1 "$work/a.tsv" | grep -qx '# seed 42' || fail "the seed is not printed first"
grep -q -- '^# collc-platforms --seed 42 --count 5 --first 0 ' "$work/a.tsv" ||
  fail "the command is not printed"
[ "$(grep -vc '^#' "$work/a.tsv")" = 5 ] || fail "expected 5 platforms"
# Platforms 2-4 are the same whether drawn from 0 or from 2.
for f in "$work"/b/*; do
  cmp -s "$f" "$work/a/$(basename "$f")" || fail "$(basename "$f") differs between draws"
done
[ "$(ls "$work/a" | wc -l)" = 10 ] || fail "expected 5 platforms and 5 hostfiles"
ls "$work"/a/*.tmp > /dev/null 2>&1 && fail "a temporary file was left"

seed=$("$draw" --count 1 | awk 'NR == 1 {print $3}')
[[ "$seed" =~ ^[0-9]+$ ]] || fail "no seed printed without --seed: '$seed'"

check() { # check EXPECTED-MESSAGE ARGS...: exit 1, the message, no files
  local want=$1 rc=0
  shift
  "$draw" "$@" --out "$work/bad" > /dev/null 2> "$work/err" || rc=$?
  [ $rc = 1 ] || fail "$* exited $rc, expected 1"
  grep -qF -- "$want" "$work/err" || fail "$*: expected '$want', got '$(cat "$work/err")'"
  [ ! -e "$work/bad" ] || fail "$*: wrote $work/bad"
}
check "--count: expected 1 to 100000, got 0" --count 0
check "--seed: expected an unsigned integer, got 'x'" --seed x
check "--families: unknown family 'mesh'" --families torus-2d,mesh
check "expected ranks from 2 to 65536 with the least at most the most, got 64 to 16" \
  --min-ranks 64 --max-ranks 16
check "no torus-3d platform has 17 to 17 ranks" --min-ranks 17 --max-ranks 17 \
  --max-procs-per-node 1 --families torus-3d
echo "platforms-cli: ok"
