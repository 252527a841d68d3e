#!/bin/bash
# `collc --emit ompi-rules` files are read by Open MPI's coll/tuned:
#  1. for bcast, reduce, allreduce, scan, gather, scatter and alltoall on the
#     SP2 model, the rules file collc writes drives a program whose results
#     are checked (exit 0);
#  2. Open MPI really parses the file: the same broadcast file with its
#     rules' algorithm changed to Open MPI's pipeline with 1-byte segments
#     makes a 64 KiB broadcast at least 5x slower.
# Usage: ompi_rules.sh COLLC SOURCE_DIR MPICC
set -euo pipefail
COLLC=$1 SRC=$2 MPICC=$3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
"$MPICC" -O1 -o "$WORK/check" "$SRC/tests/select/ompi_rules_check.c"
run() { # rules-file args...
  local Rules=$1
  shift
  timeout 120 mpirun -np 4 --mca coll_tuned_use_dynamic_rules 1 \
    --mca coll_tuned_dynamic_rules_filename "$Rules" "$WORK/check" "$@"
}
for C in bcast reduce allreduce scan gather scatter alltoall; do
  "$COLLC" --machine "$SRC/examples/machines/sp2.yaml" --collective "$C" --ranks 4 \
    --emit ompi-rules --bytes-range 1:262144 -o "$WORK/$C.rules"
  grep -q '^1 # collectives' "$WORK/$C.rules"
  run "$WORK/$C.rules" "$C" || { echo "FAIL: $C under its rules file"; cat "$WORK/$C.rules"; exit 1; }
  echo "ok: $C ($(grep -c '^[0-9]* [0-9]* 0 [0-9]* #' "$WORK/$C.rules") rules)"
done
# Rewrite every rule of the bcast file to pipeline (3) with 1-byte segments.
sed -E 's/^([0-9]+) [0-9]+ 0 [0-9]+( #.*)$/\1 3 0 1\2/' "$WORK/bcast.rules" >"$WORK/slow.rules"
Fast=$(run "$WORK/bcast.rules" time)
Slow=$(run "$WORK/slow.rules" time)
echo "64 KiB bcast x3: collc's rules $Fast s, 1-byte pipeline rules $Slow s"
awk -v F="$Fast" -v S="$Slow" 'BEGIN { exit !(S > 5 * F) }' ||
  { echo "FAIL: the rules file seems not to be read"; exit 1; }
echo PASS
