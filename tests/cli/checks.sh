# Sourced by CLI tests run as `script COLLC SRC`: sets collc and src, moves
# to the source tree, makes a temporary folder $tmp (removed on exit) and
# counts checks with ok / bad "why"; `finish` prints the tally and is the
# exit status.
set -u
collc=$1 src=$2
cd "$src" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
