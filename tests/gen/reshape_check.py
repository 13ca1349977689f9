#!/usr/bin/env python3
"""Property check: a re-shaped log gives the incidents, kinds and facts of the original.

Usage:
  tests/gen/reshape_check.py OOMLENS [--min-detection P] [--min-facts P] [--seeds N]
                             [--shapes S1,S2,...] [--samples RULES_DIR] [--table] LOG_OR_DIR...

For every log (directories: their *.log files, recursively) and every signature sample of the
rules under RULES_DIR, each shape of tests/gen/reshape.py is applied (the 'random'
shape with N seeds) and oomlens runs on the original and the re-shaped text:
  detection  an input whose original gives incidents still gives one of each kind
  facts      every fact of the original's incidents (kind, name, bytes within 1%)
             is still there
  negatives  an input whose original gives no incident gives none re-shaped
Prints one line per shape (--table: a markdown table) and the failures; exits 1
when a rate is below its minimum or a negative turns positive.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reshape  # noqa: E402

DEFAULT_SHAPES = ["wrap30", "wrap45", "wrap60", "wrap80", "wrap100", "wrap120", "wrap160",
                  "indent60", "indent80", "quote+wrap100", "bullets", "bullets+bold", "bold",
                  "backticks", "fence", "entities", "crlf", "gutter", "random"]


def run(oomlens, text):
    out = subprocess.run([oomlens, "--format", "json", "-q", "-"], input=text.encode("utf-8", "surrogateescape"),
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
    if out.returncode not in (0, 1):
        raise RuntimeError("exit %d" % out.returncode)
    return json.loads(out.stdout)["incidents"]


def summary(incidents):
    """kind -> {fact: value} over the incidents (the first value of each fact)."""
    kinds = {}
    for i in incidents:
        facts = kinds.setdefault(i["kind"], {})
        for name, value in i["facts"].items():
            facts.setdefault(name, value)
    return kinds


def same_value(a, b):
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 0.01 * max(abs(a), abs(b), 1)
    return a == b


def compare(original, shaped):
    """(kinds kept, kinds, facts kept, facts, missing descriptions)."""
    kinds_kept = facts_kept = facts = 0
    missing = []
    for kind, want in original.items():
        got = shaped.get(kind)
        kinds_kept += got is not None
        for name, value in want.items():
            facts += 1
            if got is not None and name in got and same_value(got[name], value):
                facts_kept += 1
            else:
                missing.append("%s.%s" % (kind, name))
    if not original and shaped:
        missing.append("false positive: " + ",".join(sorted(shaped)))
    return kinds_kept, len(original), facts_kept, facts, missing


def inputs(paths, samples_dir):
    for path in paths:
        if os.path.isdir(path):
            for root, _, files in sorted(os.walk(path)):
                for name in sorted(files):
                    if name.endswith(".log"):
                        yield os.path.join(root, name), open(os.path.join(root, name), encoding="utf-8",
                                                             errors="surrogateescape", newline="").read()
        else:
            yield path, open(path, encoding="utf-8", errors="surrogateescape", newline="").read()
    if samples_dir:
        for root, _, files in os.walk(samples_dir):
            for name in sorted(files):
                if not name.endswith(".json"):
                    continue
                doc = json.load(open(os.path.join(root, name)))
                for sig in doc.get("signatures", []):
                    if sig.get("series") or sig.get("activity") or sig.get("annotates"):
                        continue
                    for k, sample in enumerate(sig.get("samples", [])):
                        if sample.get("expect") is not None and "text" in sample:
                            yield "%s:%s#%d" % (name, sig["id"], k), sample["text"] + "\n"


def main(argv):
    opts = {"--min-detection": 0.0, "--min-facts": 0.0, "--seeds": 3, "--shapes": ",".join(DEFAULT_SHAPES),
            "--samples": None}
    table = "--table" in argv
    argv = [a for a in argv if a != "--table"]
    rest = []
    i = 0
    while i < len(argv):
        if argv[i] in opts:
            opts[argv[i]] = argv[i + 1]
            i += 2
        else:
            rest.append(argv[i])
            i += 1
    if not rest:
        sys.exit(__doc__)
    oomlens, paths = rest[0], rest[1:]
    shapes = opts["--shapes"].split(",")
    cases = list(inputs(paths, opts["--samples"]))
    originals = {name: summary(run(oomlens, text)) for name, text in cases}
    failed = False
    rows = []
    for shape in shapes:
        seeds = range(int(opts["--seeds"])) if shape == "random" else [1]
        k_kept = k_all = f_kept = f_all = fp = 0
        misses = []
        for name, text in cases:
            for seed in seeds:
                shaped = summary(run(oomlens, reshape.reshape(text, shape, seed + sum(map(ord, os.path.basename(name))))))
                a, b, c, d, missing = compare(originals[name], shaped)
                k_kept, k_all, f_kept, f_all = k_kept + a, k_all + b, f_kept + c, f_all + d
                fp += bool(not originals[name] and shaped)
                if missing:
                    misses.append("  %s [%s seed %d]: %s" % (name, shape, seed, ", ".join(missing[:6])))
        detection = k_kept / k_all if k_all else 1.0
        facts = f_kept / f_all if f_all else 1.0
        rows.append((shape, detection, facts, fp))
        low = detection < float(opts["--min-detection"]) or facts < float(opts["--min-facts"]) or fp > 0
        failed = failed or low
        if not table:
            print("%-16s detection %5.1f%%  facts %5.1f%%  false positives %d%s" %
                  (shape, 100 * detection, 100 * facts, fp, "  BELOW MINIMUM" if low else ""))
            if low:
                print("\n".join(misses[:20]))
    if table:
        print("| re-shaping | detection and kind | facts | false positives |\n|---|---|---|---|")
        for shape, detection, facts, fp in rows:
            print("| %s | %.1f%% | %.1f%% | %d |" % (shape, 100 * detection, 100 * facts, fp))
    print("%d inputs, %d shapes" % (len(cases), len(shapes)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
