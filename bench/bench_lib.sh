# Shared by the benchmark scripts (sourced): reading a `kiln verify` log and writing
# a markdown table into a marked block of a file.

median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

# verify_summary LOG RC -> "instr workspace bound params status": the median of the
# log's three "instructions per inference" (all three runs must PASS: RC 0), the
# workspace pool and its lower bound, the parameter pool (the pools named sram and
# flash by the scripts' --with-*-buffer flags).
verify_summary() {
  local log=$1 rc=$2
  local instr=($(grep -o '[0-9]* instructions per inference' "$log" | awk '{print $1}'))
  local ws=$(awk '$1=="sram" && $2=="workspace" {print $4; exit}' "$log")
  local lb=$(awk '$1=="sram" && $2=="workspace" {print $5; exit}' "$log")
  local par=$(awk '$1=="flash" && $2=="parameter" {print $4; exit}' "$log")
  local status=PASS; [ "$rc" -eq 0 ] || status=FAIL
  # A network larger than the board's RAM or flash is not a kernel failure.
  grep -q "may not fit the board's memory" "$log" && status="does not fit the board's memory"
  local med="-"; [ ${#instr[@]} -eq 3 ] && med=$(median3 "${instr[@]}")
  echo "$med ${ws:--} ${lb:--} ${par:--} $status"
}

fmt_m() { [ -z "$1" ] || [ "$1" = "-" ] && echo "-" || awk -v v="$1" 'BEGIN{printf "%.2fM", v/1e6}'; }

# write_block FILE MARKER TABLE: replaces the lines between <!-- MARKER:begin --> and
# <!-- MARKER:end --> in FILE with TABLE's.
write_block() {
  local file=$1 marker=$2 table=$3
  awk -v table="$table" -v b="<!-- $marker:begin -->" -v e="<!-- $marker:end -->" '
    $0 == b { print; while ((getline line < table) > 0) print line; skip = 1; next }
    $0 == e { skip = 0 }
    !skip { print }' "$file" > "$file.tmp" && mv "$file.tmp" "$file"
}

# bench_flags NAME ARGS...: the options after a script's positional arguments,
# --boards "B1 B2" and --write FILE, into BOARDS and WRITE (their defaults set by
# the caller); anything else stops the script naming NAME.
bench_flags() {
  local name=$1; shift
  while [ $# -gt 0 ]; do
    case $1 in
      --boards) BOARDS=$2; shift 2 ;;
      --write) WRITE=$2; shift 2 ;;
      *) echo "$name: unknown argument $1" >&2; exit 2 ;;
    esac
  done
}
