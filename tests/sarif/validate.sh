#!/usr/bin/env bash
# Every SARIF oomlens writes passes Microsoft's validator (@microsoft/sarif-multitool,
# pinned in package-lock.json), SARIF's rules and GitHub's, with no error and no warning: each bundled log alone,
# all of testdata/logs with relative paths, and with absolute ones (as CI runners
# give them: $GITHUB_WORKSPACE/...).
#
#   tests/sarif/validate.sh OOMLENS      (after: cd tests/sarif && npm ci)
set -euo pipefail
BIN=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$(mktemp -d /tmp/oomlens-sarif.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1  # the validator needs no ICU then

cd "$ROOT"
n=0
while IFS= read -r log; do
  n=$((n + 1))
  "$BIN" -q --format sarif "$log" > "$WORK/each-$n.sarif" || [ $? -eq 1 ]
done < <(find testdata/logs testdata/examples -name '*.log' | sort)
"$BIN" -q --format sarif -r testdata/logs > "$WORK/relative.sarif" || [ $? -eq 1 ]
"$BIN" -q --format sarif -r "$ROOT/testdata/logs" > "$WORK/absolute.sarif" || [ $? -eq 1 ]

# One run of the validator over all documents (it starts slowly); its log names the
# file of each finding. The rule kinds are SARIF's own rules and GitHub's (code
# scanning's, e.g. GH2012: every rule needs a fullDescription). The npm wrapper passes
# its arguments through a shell, so the ';' between them is quoted twice.
"$HERE/node_modules/.bin/sarif-multitool" validate --rule-kind "'Gh;Sarif'" "$WORK"/*.sarif \
  -o "$WORK/validation.json" > "$WORK/validation.log" 2>&1 || true
findings=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(len(run.get("results") or []) for run in r["runs"]))' \
  "$WORK/validation.json" 2>/dev/null || echo "unknown (the validator wrote no results)")
echo "sarif: $(ls "$WORK"/*.sarif | wc -l) documents validated, findings: $findings"
if [ "$findings" != "0" ]; then
  grep -E "(error|warning) SARIF|ERR" "$WORK/validation.log" | head -20
  exit 1
fi
