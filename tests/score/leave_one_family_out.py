#!/usr/bin/env python3
"""Leave one family out: how oomlens does on a family of OOM messages it has no signature for.

Usage: leave_one_family_out.py [--min-logs N] [--corpus-check PATH] OOMLENS [CORPUS_DIR ...]

For each message family of the corpus manifests (pytorch_cuda_new, tpu_vmem, ...), the
built-in rules are copied without that family's signatures (those whose kind the family
stands for, as corpus-check maps families to kinds; for a family that maps to no kind,
the kinds its logs are recognised as with every rule), and that family's logs are scored
with everything else by ../shared/tools/corpus-check, negatives included (a false alarm
counts). The fallback signatures of rules/signatures/generic.json are never left out:
they are what recognises a runtime no family signature knows.

This is the number to raise (issue "Recognise an OOM by what it says"): the collections
score 100% because the signatures were written from them; a family left out shows how
oomlens does on a runtime it has never seen. Exit 0 always; the last line sums it up.
"""
import argparse
import glob
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_CHECK = os.path.join(ROOT, "..", "shared", "tools", "corpus-check")
FALLBACK_FILES = {"generic.json"}  # never left out


def load_check(path):
    loader = importlib.machinery.SourceFileLoader("corpus_check", path)
    spec = importlib.util.spec_from_loader("corpus_check", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def manifest_entries(dirs):
    """(log path, entry) of every manifest entry expected to be an OOM."""
    out = []
    for d in dirs:
        path = os.path.join(d, "MANIFEST.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        entries = doc if isinstance(doc, list) else doc.get("entries", doc.get("logs", []))
        for e in entries:
            if e.get("expected") == "oom" and e.get("family"):
                out.append((os.path.join(d, e["file"]), e))
    return out


def kinds_seen(binary, log):
    p = subprocess.run([binary, "--format", "json", log], capture_output=True, timeout=120)
    try:
        return {i.get("kind") for i in json.loads(p.stdout.decode("utf-8")).get("incidents", [])}
    except ValueError:
        return set()


def signature_kinds(sig):
    return {sig.get("kind")} | {k.get("kind") for k in sig.get("kind_when", [])}


def rules_without(kinds, into):
    """Copies rules/ into `into` without the signatures producing any of kinds; the ids left out."""
    shutil.copytree(os.path.join(ROOT, "rules"), into)
    dropped = []
    for path in glob.glob(os.path.join(into, "signatures", "*.json")):
        if os.path.basename(path) in FALLBACK_FILES:
            continue
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        keep = [s for s in doc.get("signatures", []) if not (signature_kinds(s) & kinds)]
        dropped += [s["id"] for s in doc.get("signatures", []) if signature_kinds(s) & kinds]
        doc["signatures"] = keep
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
    return dropped


def score(check, binary, rules_dir, family, dirs, negatives, verbose=False):
    wrapper = os.path.join(os.path.dirname(rules_dir), "oomlens")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nexec "%s" --no-builtin-rules --rules "%s" "$@"\n' % (os.path.abspath(binary), rules_dir))
    os.chmod(wrapper, 0o755)
    p = subprocess.run([sys.executable, check] + (["-v"] if verbose else []) + ["--families", family, wrapper] +
                       dirs + negatives, capture_output=True, text=True)
    if verbose:
        print(p.stdout)
    last = (p.stdout.strip().splitlines() or ["?"])[-1]
    figures = {k: float(v) for k, v in re.findall(r"(detection|kind|facts|causes) ([\d.]+)%", last)}
    for name, total in re.findall(r"(facts|causes): \d+/(\d+)", p.stdout):
        if int(total) == 0:
            figures[name] = None  # nothing to score: the manifest names no such figure
    fp = re.search(r"fp (\d+)", last)
    return figures, int(fp.group(1)) if fp else -1


def percent(value):
    return "    n/a" if value is None else "%6.1f%%" % value


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--min-logs", type=int, default=3, help="families with fewer OOM logs are listed apart")
    ap.add_argument("--corpus-check", default=DEFAULT_CHECK)
    ap.add_argument("--only", help="leave out this family only")
    ap.add_argument("-v", "--verbose", action="store_true", help="print corpus-check's notes per log")
    ap.add_argument("oomlens")
    ap.add_argument("dirs", nargs="*")
    a = ap.parse_args(argv)
    if not os.path.exists(a.corpus_check):
        print("leave_one_family_out: %s not found (help: --corpus-check PATH)" % a.corpus_check, file=sys.stderr)
        return 2
    check = load_check(a.corpus_check)
    corpus = os.path.dirname(os.path.dirname(os.path.abspath(a.corpus_check))) + "/corpus"
    dirs = a.dirs or sorted(d for d in glob.glob(corpus + "/*") if os.path.isdir(d))
    negatives = [d for d in dirs if "negative" in os.path.basename(d)]
    positives = [d for d in dirs if d not in negatives]
    by_family = {}
    for log, entry in manifest_entries(positives):
        by_family.setdefault(entry["family"], []).append(log)
    rows, small = [], []
    for family in sorted(by_family):
        if a.only and family != a.only:
            continue
        logs = by_family[family]
        kinds = check.KINDS.get(family)
        if kinds is None:  # "other": the kinds its logs are recognised as today
            kinds = set().union(*(kinds_seen(a.oomlens, log) for log in logs)) - {"unrecognized_oom"}
        with tempfile.TemporaryDirectory() as tmp:
            dropped = rules_without(set(kinds), os.path.join(tmp, "rules"))
            figures, fp = score(a.corpus_check, a.oomlens, os.path.join(tmp, "rules"), family, positives, negatives,
                               a.verbose)
        row = (family, len(logs), len(dropped), figures, fp)
        (rows if len(logs) >= a.min_logs else small).append(row)
    print("%-26s %5s %8s %7s %7s %7s %7s %3s" % ("family left out", "logs", "sigs out", "detect", "kind", "facts",
                                               "causes", "fp"))
    for family, n, dropped, f, fp in rows + small:
        print("%-26s %5d %8d %s %s %s %s %3d%s" % (
            family, n, dropped, percent(f.get("detection", 0)), percent(f.get("kind", 0)), percent(f.get("facts", 0)),
            percent(f.get("causes", 0)), fp, "" if n >= a.min_logs else "  (fewer than %d logs)" % a.min_logs))
    scored = [r for r in rows]
    worst_detection = min((r[3].get("detection", 0) for r in scored), default=0)
    worst_facts = min((r[3]["facts"] for r in scored if r[3].get("facts") is not None), default=None)
    print("leave-one-family-out: %d families with %d+ logs: lowest detection %.1f%%, lowest facts %s, fp %d" % (
        len(scored), a.min_logs, worst_detection, percent(worst_facts).strip(), sum(max(r[4], 0) for r in rows + small)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
