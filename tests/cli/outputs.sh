#!/usr/bin/env bash
# -o and what it names: a symlink is followed (its target written, the link
# kept), a device or FIFO is written in place and never replaced, a
# read-only file or a directory is refused (exit 1, nothing changed), a
# replaced file keeps its permissions, and the several files of --emit
# ti-trace are written all or nothing. Everything happens in a temporary
# folder: no test touches a real device.
. "$(dirname "$0")/checks.sh"
run() {
  "$collc" --machine examples/machines/ibm-sp.yaml --collective bcast \
    --ranks 4 --bytes 8 --algorithm binomial "$@"
}
run --emit summary > "$tmp/want.txt" || bad "summary to stdout"

# A symlink: the file it points to gets the output; the link stays a link.
echo old > "$tmp/target.txt"
ln -s target.txt "$tmp/link.txt"
run --emit summary -o "$tmp/link.txt" && [ -L "$tmp/link.txt" ] &&
  cmp -s "$tmp/target.txt" "$tmp/want.txt" && ok || bad "symlink replaced or target not written"
# A dangling symlink: the file it names is created.
ln -s created.txt "$tmp/dangling.txt"
run --emit summary -o "$tmp/dangling.txt" && [ -L "$tmp/dangling.txt" ] &&
  cmp -s "$tmp/created.txt" "$tmp/want.txt" && ok || bad "dangling symlink"

# A FIFO is opened and written, not replaced by a regular file.
mkfifo "$tmp/fifo"
timeout 20 cat "$tmp/fifo" > "$tmp/fifo.out" &
reader=$!
run --emit summary -o "$tmp/fifo"
rc=$?
wait $reader
[ $rc -eq 0 ] && [ -p "$tmp/fifo" ] && cmp -s "$tmp/fifo.out" "$tmp/want.txt" &&
  ok || bad "FIFO (status $rc, still a FIFO: $([ -p "$tmp/fifo" ] && echo yes || echo no))"

# Character devices made here (when mknod is permitted): a null device is
# written and stays a device; a full one fails with exit 1 and stays too.
if mknod "$tmp/null" c 1 3 2>/dev/null && mknod "$tmp/full" c 1 7 2>/dev/null; then
  run --emit summary -o "$tmp/null" && [ -c "$tmp/null" ] && ok || bad "null device replaced"
  run --emit summary -o "$tmp/full" 2> "$tmp/err"
  rc=$?
  [ $rc -eq 1 ] && [ -c "$tmp/full" ] &&
    [ "$(cat "$tmp/err")" = "$tmp/full: error: cannot write: No space left on device" ] &&
    ok || bad "full device: status $rc, $(cat "$tmp/err")"
else
  echo "note: mknod not permitted here; device cases skipped"
fi

# A read-only file is refused, root or not, and left as it was.
echo keep > "$tmp/ro.txt"
chmod 444 "$tmp/ro.txt"
run --emit summary -o "$tmp/ro.txt" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(cat "$tmp/ro.txt")" = keep ] &&
  [ "$(cat "$tmp/err")" = "$tmp/ro.txt: error: cannot write: the file is read-only" ] &&
  ok || bad "read-only file: status $rc, $(cat "$tmp/err")"
# So is a directory.
mkdir "$tmp/dir"
run --emit summary -o "$tmp/dir" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "$tmp/dir: error: cannot write: it is a directory" ] &&
  ok || bad "directory: status $rc, $(cat "$tmp/err")"

# A replaced file keeps its permissions.
echo x > "$tmp/private.txt"
chmod 600 "$tmp/private.txt"
run --emit summary -o "$tmp/private.txt" && [ "$(stat -c %a "$tmp/private.txt")" = 600 ] &&
  cmp -s "$tmp/private.txt" "$tmp/want.txt" && ok || bad "permissions not kept"

# ti-trace writes the index and one file per rank: when one of them cannot
# be written (here rank 2's name is taken by a folder), none is.
mkdir -p "$tmp/d/idx.txt.2"
run --emit ti-trace -o "$tmp/d/idx.txt" 2> "$tmp/err"
rc=$?
left=$(cd "$tmp/d" && ls -A | tr '\n' ' ')
[ $rc -eq 1 ] && [ "$left" = "idx.txt.2 " ] && ok ||
  bad "ti-trace half-way: status $rc, left: $left"
# ... and when all can, all are written.
rmdir "$tmp/d/idx.txt.2"
run --emit ti-trace -o "$tmp/d/idx.txt" && [ "$(cat "$tmp/d/idx.txt" | wc -l)" = 4 ] &&
  [ -s "$tmp/d/idx.txt.3" ] && ok || bad "ti-trace files"

# The index names the traces one per line: a line break in the name would
# make it name other files.
run --emit ti-trace -o "$tmp/d/"$'x\nidx.txt' 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ ! -e "$tmp/d/"$'x\nidx.txt' ] &&
  [ "$(cat "$tmp/err")" = "collc: error: --emit ti-trace: the index names the trace files one per line; -o cannot hold a line break" ] &&
  ok || bad "ti-trace name with a line break: status $rc, $(cat "$tmp/err")"

finish
