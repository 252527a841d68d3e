#!/usr/bin/env bash
# What collc reads must be a regular file under the size limit: a FIFO (with
# no writer: reading it would wait forever), a device (/dev/zero: reading it
# would never end), a socket, a directory, a file over 256 MiB (sparse: it
# takes no space) and a missing file are each refused at once, as
# "<path>: error: <what it is>", with exit status 1, nothing on stdout and
# no output file, whichever input names them: --machine, --request or
# --schedule. A symbolic link to a regular file is followed.
. "$(dirname "$0")/checks.sh"

mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
truncate -s 300M "$tmp/big.yaml"
truncate -s 268435457 "$tmp/just-over.yaml"
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" \
  "$tmp/socket" 2>/dev/null || true

# case PATH EXPECTED-WHAT: PATH as each input, refused with that text.
case_of() {
  local path=$1 what=$2 how args
  for how in machine request schedule; do
    case $how in
      machine) args=(--machine "$path" --collective bcast --ranks 4 --bytes 8) ;;
      request) args=(--machine examples/machines/ibm-sp.yaml --request "$path") ;;
      schedule) args=(--schedule "$path" --emit json) ;;
    esac
    local t0 t1 rc
    t0=$(date +%s%N)
    timeout 10 "$collc" "${args[@]}" -o "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    t1=$(date +%s%N)
    local got
    got=$(cat "$tmp/stderr")
    if [ $rc -eq 124 ]; then
      bad "--$how $path: still running after 10 s"
    elif [ $rc -ne 1 ]; then
      bad "--$how $path: exit status $rc, expected 1 ($got)"
    elif [ "$got" != "$path: error: $what" ]; then
      bad "--$how $path: got '$got', expected '$path: error: $what'"
    elif [ -s "$tmp/stdout" ] || [ -e "$tmp/out" ]; then
      bad "--$how $path: wrote output"
    elif [ $(((t1 - t0) / 1000000)) -gt 2000 ]; then
      bad "--$how $path: took $(((t1 - t0) / 1000000)) ms to refuse"
    else
      ok
    fi
    rm -f "$tmp/out"
  done
}

case_of "$tmp/fifo" "is a FIFO; expected a regular file"
case_of /dev/zero "is a character device; expected a regular file"
case_of /dev/null "is a character device; expected a regular file"
case_of "$tmp/dir" "is a directory; expected a regular file"
case_of "$tmp/big.yaml" "is 300 MiB, more than the 256 MiB an input may be"
case_of "$tmp/just-over.yaml" \
  "is 268435457 bytes (256 MiB), more than the 256 MiB an input may be"
case_of "$tmp/missing.yaml" "cannot read file: No such file or directory"
if [ -S "$tmp/socket" ]; then
  case_of "$tmp/socket" "is a socket; expected a regular file"
else
  echo "note: no python3 to make a socket; socket case skipped"
fi

# A FIFO that a writer holds open is refused too (its type, not its data,
# decides), and the writer is not waited for.
sleep 30 > "$tmp/fifo" &
writer=$!
case_of "$tmp/fifo" "is a FIFO; expected a regular file"
kill $writer 2>/dev/null
wait $writer 2>/dev/null

# A link to a regular file is read like the file.
ln -s "$PWD/examples/machines/ibm-sp.yaml" "$tmp/link.yaml"
"$collc" --machine "$tmp/link.yaml" --collective bcast --ranks 4 --bytes 8 \
  --emit json >"$tmp/stdout" 2>"$tmp/stderr" && grep -q '"makespan"' "$tmp/stdout" &&
  ok || bad "a symbolic link to a machine file: $(cat "$tmp/stderr")"
finish
