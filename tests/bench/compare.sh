#!/usr/bin/env bash
# Speed and memory of oomlens against rg and grep, on generated logs.
#
#   tests/bench/compare.sh [BUILD_DIR]      (default: build; SIZES_MIB="1024 2048 4096")
#
# Generates the inputs (tests/gen/noise_log.py, never committed), installs ripgrep
# if missing, runs oomlens, rg and grep alternately (median of RUNS, default 5),
# prints the figures and ratios, and exits 1 when a target of docs/performance.md
# is missed. rg and grep get exactly the literals oomlens prefilters on
# (`oomlens rules literals`). Timing is wall clock on a shared machine: compare
# figures taken in the same run only.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build}/oomlens
RUNS=${RUNS:-5}
SIZES_MIB=${SIZES_MIB:-"1024 2048 4096"}
WORK=${WORK:-$(mktemp -d /tmp/oomlens-bench.XXXXXX)}
failures=0

say() { printf '%s\n' "$*"; }
need() { command -v "$1" >/dev/null || { sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo; $sudo apt-get install -y -qq "$2" >/dev/null; }; }
need rg ripgrep
need /usr/bin/time time
need gzip gzip

"$BIN" rules literals > "$WORK/literals.txt"

# Median wall seconds of each command (one string each; paths without spaces),
# the commands run in turn RUNS times: a load that comes and goes on this shared
# machine hits them alike. Prints the medians on one line, in order.
alternate() {
  local -a times=()
  local k cmd
  for _ in $(seq "$RUNS"); do
    k=0
    for cmd in "$@"; do
      # not > /dev/null: GNU grep stops at the first match when its output is /dev/null
      # shellcheck disable=SC2086
      /usr/bin/time -f "%e" -o "$WORK/time" $cmd > "$WORK/out" 2>&1 || true
      times[k]+="$(tail -1 "$WORK/time") "
      k=$((k + 1))
    done
  done
  for k in "${!times[@]}"; do
    # shellcheck disable=SC2086
    printf '%s\n' ${times[k]} | sort -n | awk '{a[NR]=$1} END {printf "%s ", a[int((NR+1)/2)]}'
  done
  echo
}
# peak RSS in MiB of a command run through sh
peak_mib() {
  /usr/bin/time -f "%M" -o "$WORK/rss" sh -c "$1" > /dev/null 2>&1 || true
  tail -1 "$WORK/rss" | awk '{printf "%.1f", $1/1024}'
}
check() {  # check NAME VALUE OP LIMIT
  if awk -v v="$2" -v l="$4" "BEGIN {exit !(v $3 l)}"; then say "  ok    $1: $2 (target $3 $4)"
  else say "  MISS  $1: $2 (target $3 $4)"; failures=$((failures + 1)); fi
}

say "# oomlens benchmark ($(nproc) cores, $(date -u +%F), median of $RUNS)"
per_gib=()  # oomlens seconds per GiB at each size: cost must grow linearly
for mib in $SIZES_MIB; do
  log="$WORK/noise-$mib.log"
  [ -f "$log" ] || python3 tests/gen/noise_log.py "$mib" > "$log"
  read -r o r g < <(alternate "$BIN -q $log" "rg -c -F -f $WORK/literals.txt $log" "grep -c -F -f $WORK/literals.txt $log")
  say "noise ${mib} MiB: oomlens ${o}s  rg ${r}s  grep ${g}s"
  per_gib+=("$(awk -v t="$o" -v m="$mib" 'BEGIN{printf "%.3f", t * 1024 / m}')")
  check "oomlens/rg (${mib} MiB)" "$(awk -v a="$o" -v b="$r" 'BEGIN{printf "%.2f", a/b}')" "<=" 1.0
  check "oomlens/grep (${mib} MiB)" "$(awk -v a="$o" -v b="$g" 'BEGIN{printf "%.2f", a/b}')" "<=" 0.5
  check "peak RSS file (${mib} MiB)" "$(peak_mib "$BIN -q $log")" "<=" 32
  check "peak RSS stdin (${mib} MiB)" "$(peak_mib "cat $log | $BIN -q")" "<=" 32
done

if [ ${#per_gib[@]} -gt 1 ]; then
  say "seconds per GiB by size: ${per_gib[*]}"
  check "linear cost (largest/smallest per GiB)" \
    "$(printf '%s\n' "${per_gib[@]}" | awk 'NR==1{first=$1} {last=$1} END{printf "%.2f", last/first}')" "<=" 1.25
fi

mib=${SIZES_MIB%% *}
# Flat with the number of rules: 300 more signatures, each with its own literal.
mkdir -p "$WORK/many-rules"
python3 tests/gen/many_signatures.py 300 > "$WORK/many-rules/generated.json"
read -r o m < <(alternate "$BIN -q $WORK/noise-$mib.log" "$BIN -q --rules $WORK/many-rules $WORK/noise-$mib.log")
say "rules: $("$BIN" rules literals | wc -l) literals ${o}s, $("$BIN" --rules "$WORK/many-rules" rules literals | wc -l) literals ${m}s"
check "cost with 300 more signatures" "$(awk -v a="$m" -v b="$o" 'BEGIN{printf "%.2f", a/b}')" "<=" 1.25

storm="$WORK/storm-$mib.log"
[ -f "$storm" ] || python3 tests/gen/noise_log.py "$mib" --storm > "$storm"
read -r o r < <(alternate "$BIN -q $storm" "rg -c -F -f $WORK/literals.txt $storm")
say "storm ${mib} MiB: oomlens ${o}s  rg ${r}s"
check "storm oomlens/rg" "$(awk -v a="$o" -v b="$r" 'BEGIN{printf "%.2f", a/b}')" "<=" 1.5

gz="$WORK/noise-$mib.log.gz"
[ -f "$gz" ] || gzip -1 -c "$WORK/noise-$mib.log" > "$gz"
check "peak RSS gzip (${mib} MiB)" "$(peak_mib "$BIN -q $gz")" "<=" 32

line="$WORK/one-line.log"
[ -f "$line" ] || head -c $((1 << 30)) /dev/zero | tr '\0' x > "$line"
check "peak RSS one 1 GiB line" "$(peak_mib "$BIN -q $line")" "<=" 32

mkdir -p "$WORK/many"
for k in 1 2 3 4; do [ -f "$WORK/many/$k.log" ] || cp "$WORK/noise-$mib.log" "$WORK/many/$k.log"; done
many=$(echo "$WORK"/many/*.log)
read -r j1 j2 < <(alternate "$BIN -q -j 1 $many" "$BIN -q -j 2 $many")
say "4 files: -j 1 ${j1}s  -j 2 ${j2}s"
check "speedup -j 2" "$(awk -v a="$j1" -v b="$j2" 'BEGIN{printf "%.2f", a/b}')" ">=" 1.8

say "inputs kept in $WORK"
if [ "$failures" -gt 0 ]; then say "$failures target(s) missed"; exit 1; fi
say "all targets met"
