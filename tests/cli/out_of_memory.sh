#!/usr/bin/env bash
# Running out of memory is a diagnostic and exit status 1, not an abort, and
# leaves no output file. collc runs under an address-space limit with a
# request that needs far more (an all-to-all's n^2 transfers). Skipped (77)
# where the limit cannot be applied, e.g. under AddressSanitizer, which
# reserves terabytes of address space at start.
set -u
collc=$1 src=$2
cd "$src" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
limit=400000 # KiB
if ! (ulimit -v $limit && "$collc" --version >/dev/null 2>&1); then
  echo "SKIP: collc does not start under ulimit -v $limit"
  exit 77
fi
(ulimit -v $limit
 exec "$collc" --machine examples/machines/ibm-sp.yaml --collective alltoall \
   --ranks 8192 --bytes 8 --algorithm pairwise -o "$tmp/out.json" --emit json) \
  >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
want="collc: error: out of memory: the input needs more memory than is available; nothing was written"
fail=0
[ "$rc" -eq 1 ] || { echo "FAIL: exit status $rc, expected 1"; fail=1; }
[ "$(cat "$tmp/stderr")" = "$want" ] || { echo "FAIL: stderr differs:"; cat "$tmp/stderr"; fail=1; }
[ ! -s "$tmp/stdout" ] || { echo "FAIL: wrote to stdout"; fail=1; }
ls "$tmp" | grep -q '^out\.json' && { echo "FAIL: an output file was written"; fail=1; }
[ $fail -eq 0 ] && echo "out of memory: reported, exit 1, nothing written"
exit $fail
