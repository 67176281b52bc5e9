#!/bin/bash
# One malformed model (tests/malformed/corpus/MANIFEST.tsv): `kiln compile` must
# exit 1 with a single line "kiln: error: ..." containing EXPECT, within a time
# and a memory limit, and leave no file behind.
#   run_malformed.sh KILN MODEL EXPECT [SETUP]
# SETUP is made in a fresh folder next to a copy of the model: symlink:NAME=TARGET,
# fifo:NAME, dir:NAME, file:NAME=BYTES.
set -u
kiln=$1 model=$2 expect=$3 setup=${4:-}
MEM_KB=${KILN_MALFORMED_MEM_KB:-2097152}   # 2 GiB of address space
TIME_S=${KILN_MALFORMED_TIME_S:-60}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/model"
cp "$model" "$work/model/"
case "$setup" in
  symlink:*) s=${setup#symlink:}; ln -s "${s#*=}" "$work/model/${s%%=*}" ;;
  fifo:*) mkfifo "$work/model/${setup#fifo:}" ;;
  dir:*) mkdir "$work/model/${setup#dir:}" ;;
  file:*) s=${setup#file:}; head -c "${s#*=}" /dev/zero > "$work/model/${s%%=*}" ;;
  "") ;;
  *) echo "unknown setup '$setup'"; exit 2 ;;
esac
before=$(cd "$work" && find . | sort)

(ulimit -v "$MEM_KB"; cd "$work" && exec timeout -s KILL "$TIME_S" "$kiln" compile "model/$(basename "$model")" \
   -o out/module -q) > "$work.stdout" 2> "$work.stderr"
rc=$?
err=$(cat "$work.stderr"); out=$(cat "$work.stdout"); rm -f "$work.stdout" "$work.stderr"
after=$(cd "$work" && find . | sort)

fail() { echo "FAIL $(basename "$model"): $*"; echo "stderr: $err"; echo "stdout: $out"; exit 1; }
[ $rc -eq 137 ] && fail "killed after ${TIME_S}s (a hang)"
[ $rc -eq 1 ] || fail "exit code $rc, expected 1"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "the error is not one line"
case "$err" in "kiln: error: "*) ;; *) fail "stderr does not start with 'kiln: error: '" ;; esac
case "$err" in *"$expect"*) ;; *) fail "the error does not say '$expect'" ;; esac
[ "$before" = "$after" ] || fail "files were written: $(diff <(echo "$before") <(echo "$after") | grep '^>' | tr '\n' ' ')"
echo "ok $(basename "$model"): $err"
