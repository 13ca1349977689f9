#!/usr/bin/env bash
# Peak memory (and time) of oomlens for each class of input docs/reliability.md
# names: the figures of its "Memory by input" table. A script that prints, not a
# test: machines here are shared, so read the figures, do not assert on them.
#
#   tests/bench/memory.sh [BUILD_DIR]      (default: build; SIZE_MIB=256)
#
# Inputs are generated under WORK (never committed) and deleted at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=$(realpath "${1:-build}/oomlens")
SIZE_MIB=${SIZE_MIB:-256}
WORK=$(mktemp -d /tmp/oomlens-memory.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
command -v zstd >/dev/null || { echo "needs zstd (apt-get install zstd)" >&2; exit 2; }

# One row: class, input bytes, seconds, peak RSS in MiB, exit code.
measure() {
  local class=$1 input=$2
  shift 2
  local code=0
  /usr/bin/time -f '%e %M' -o "$WORK/time" "$BIN" "$@" > /dev/null 2> "$WORK/stderr" || code=$?
  read -r seconds kib < <(tail -1 "$WORK/time")
  printf '| %s | %s | %s s | %.0f MiB | %s |\n' "$class" "$(du -h --apparent-size "$input" | cut -f1)" \
    "$seconds" "$(echo "$kib / 1024" | bc -l)" "$code"
}

python3 tests/gen/noise_log.py "$SIZE_MIB" --storm > "$WORK/noise.log"
gzip -1 -c "$WORK/noise.log" > "$WORK/noise.log.gz"
zstd -q -3 -c "$WORK/noise.log" > "$WORK/noise.log.zst"
python3 - "$WORK" <<'EOF'
import sys
work = sys.argv[1]
oom = ("E1130 10:00:%02d.000100 4242 pjrt_client.cc:410] RESOURCE_EXHAUSTED: Error allocating device buffer: "
       "Attempting to allocate %d.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)\n")
with open(work + "/giant_line.log", "w") as f:  # one line of 256 MiB, then an OOM
    for _ in range(256):
        f.write("x" * (1 << 20))
    f.write("\n" + oom % (0, 9000))
with open(work + "/short_lines.log", "w") as f:  # 10^7 lines
    f.write("a\n" * 10_000_000)
with open(work + "/flood.log", "w") as f:  # 200,000 distinct OOMs
    for k in range(200_000):
        f.write(oom % (k % 60, k + 10))
EOF
python3 tests/gen/dump_log.py "$WORK/dumps.log" --ooms 8  # eight OOMs, each with a dump of 100,000 entries
for k in 1 2 3 4; do cp "$WORK/noise.log.gz" "$WORK/part$k.log.gz"; done
# PyTorch memory snapshots, streamed: one by Python's pickler, and SNAPSHOT_MIB (default 1024)
# written opcode by opcode as PyTorch's pickler would (a few minutes for 1 GiB)
python3 tests/gen/torch_snapshots.py --busy 500000 200000 "$WORK/snapshot-500k.pickle"
python3 tests/gen/torch_snapshots.py --stream "${SNAPSHOT_MIB:-1024}" "$WORK/snapshot-big.pickle"
"$BIN" --format json "$WORK/flood.log" > "$WORK/flood.json" 2> /dev/null || true
for k in 1 2 3 4 5 6 7 8; do cp "$WORK/flood.json" "$WORK/report$k.json"; done

echo "| input | size | time | peak RSS | exit |"
echo "|---|---|---|---|---|"
measure "generated log with a storm, text" "$WORK/noise.log" "$WORK/noise.log"
measure "the same, JSON" "$WORK/noise.log" --format json "$WORK/noise.log"
measure "the same, gzip" "$WORK/noise.log.gz" "$WORK/noise.log.gz"
measure "the same, zstd" "$WORK/noise.log.zst" "$WORK/noise.log.zst"
measure "four gzip logs, -j 4" "$WORK/noise.log.gz" -j 4 "$WORK"/part{1,2,3,4}.log.gz
measure "one line of 256 MiB" "$WORK/giant_line.log" "$WORK/giant_line.log"
measure "10^7 short lines" "$WORK/short_lines.log" "$WORK/short_lines.log"
measure "200,000 distinct OOMs, JSON" "$WORK/flood.log" --format json "$WORK/flood.log"
measure "8 dumps of 100,000 entries, JSON" "$WORK/dumps.log" --format json "$WORK/dumps.log"
measure "merge of 8 reports of 10,000 incidents" "$WORK/flood.json" merge --format json "$WORK"/report{1,2,3,4,5,6,7,8}.json
measure "memory snapshot, 500,000 blocks, 200,000 trace entries" "$WORK/snapshot-500k.pickle" "$WORK/snapshot-500k.pickle"
measure "memory snapshot of ${SNAPSHOT_MIB:-1024} MiB, streamed" "$WORK/snapshot-big.pickle" "$WORK/snapshot-big.pickle"
