#!/usr/bin/env python3
"""Leave one family out: how oomlens does on a family of OOM messages it has no signature for.

Usage: leave_one_family_out.py [--min-logs N] [--corpus-check PATH] [--no-testdata] OOMLENS [CORPUS_DIR ...]

For each message family of the corpus manifests (pytorch_cuda_new, tpu_vmem, ...), the
built-in rules are copied without that family's signatures (those whose kind the family
stands for, as corpus-check maps families to kinds; for a family that maps to no kind,
the kinds its logs are recognised as with every rule), and that family's logs are scored
with everything else by ../shared/tools/corpus-check, negatives included (a false alarm
counts). The fallback signatures of rules/signatures/generic.json are never left out:
they are what recognises a runtime no family signature knows.

The logs of testdata/logs are scored the same way in a second table: a log's family
is the kind of the first incident of its reviewed golden (testdata/expected/logs), and
the golden is what it is scored against (detection, the size facts corpus-check
scores, within 5% as it allows for MB read as SI or binary, the cause). Negatives are the corpus's; testdata's own look-alikes are tests.

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


TESTDATA = os.path.join(ROOT, "testdata")
SKIPPED_DIRS = {"negative", "runtimes"}  # look-alikes; runtimes no family signature knows


def golden_entries():
    """(log, first incident of its golden) of every testdata log whose golden has an incident."""
    out = []
    for golden in sorted(glob.glob(os.path.join(TESTDATA, "expected", "logs", "*", "*.json"))):
        folder = os.path.basename(os.path.dirname(golden))
        if folder in SKIPPED_DIRS:
            continue
        stem = os.path.splitext(os.path.basename(golden))[0]
        logs = [p for p in glob.glob(os.path.join(TESTDATA, "logs", folder, stem + ".*")) if not p.endswith(".json")]
        with open(golden, encoding="utf-8") as f:
            incidents = json.load(f).get("incidents") or []
        if logs and incidents:
            out.append((logs[0], incidents[0]))
    return out


def report_of(binary, rules_dir, log):
    p = subprocess.run([binary, "--no-builtin-rules", "--rules", rules_dir, "--format", "json", log],
                       capture_output=True, timeout=120)
    try:
        return json.loads(p.stdout.decode("utf-8")).get("incidents") or []
    except ValueError:
        return None


def score_goldens(check, binary, rules_dir, entries, verbose):
    """detection / kind / facts / causes of entries against their goldens, as score() gives them."""
    fact_names = sorted({n for names in check.FACTS.values() for n in names})
    t = dict(detected=0, kind=0, facts_ok=0, facts_total=0, causes_ok=0, causes_total=0)
    for log, want in entries:
        got = report_of(binary, rules_dir, log) or []
        expected = {n: v for n, v in (want.get("facts") or {}).items() if n in fact_names and isinstance(v, (int, float))}

        def found(inc):  # within 5%, as corpus-check allows for MB printed as SI or binary
            return sum(1 for n, v in expected.items() if abs((inc.get("facts") or {}).get(n, -1) - v) <= abs(v) * 0.05 + 1)
        best = max(got, key=found, default=None)
        t["detected"] += bool(got)
        t["kind"] += any(i.get("kind") == want.get("kind") for i in got)
        t["facts_total"] += len(expected)
        t["facts_ok"] += found(best) if best else 0
        if want.get("cause") not in (None, "unknown"):
            t["causes_total"] += 1
            t["causes_ok"] += bool(best) and best.get("cause") == want["cause"]
        if verbose and (not best or found(best) < len(expected) or best.get("cause") != want.get("cause")):
            print("%s: %s" % (os.path.relpath(log, ROOT), "no incident found" if not best else
                  "facts %d/%d, cause %s (golden %s)" % (found(best), len(expected), best.get("cause"), want.get("cause"))))
    n = len(entries)
    pct = lambda ok, total: None if total == 0 else 100.0 * ok / total
    return {"detection": pct(t["detected"], n), "kind": pct(t["kind"], n),
            "facts": pct(t["facts_ok"], t["facts_total"]), "causes": pct(t["causes_ok"], t["causes_total"])}


def percent(value):
    return "    n/a" if value is None else "%6.1f%%" % value


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--min-logs", type=int, default=3, help="families with fewer OOM logs are listed apart")
    ap.add_argument("--corpus-check", default=DEFAULT_CHECK)
    ap.add_argument("--only", help="leave out this family only")
    ap.add_argument("-v", "--verbose", action="store_true", help="print corpus-check's notes per log")
    ap.add_argument("--no-testdata", action="store_true", help="score the corpus only")
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
    print_table("family left out", rows + small, a.min_logs, with_fp=True)
    test_rows = [] if a.no_testdata else testdata_rows(check, a, rows, small)
    scored = [r for r in rows] + [r for r in test_rows if r[1] >= a.min_logs]
    worst_detection = min((r[3].get("detection", 0) for r in scored), default=0)
    worst_facts = min((r[3]["facts"] for r in scored if r[3].get("facts") is not None), default=None)
    print("leave-one-family-out: %d families with %d+ logs: lowest detection %.1f%%, lowest facts %s, fp %d" % (
        len(scored), a.min_logs, worst_detection, percent(worst_facts).strip(), sum(max(r[4], 0) for r in rows + small)))
    return 0


def print_table(title, rows, min_logs, with_fp):
    print("%-26s %5s %8s %7s %7s %7s %7s %3s" % (title, "logs", "sigs out", "detect", "kind", "facts", "causes",
                                               "fp" if with_fp else ""))
    for family, n, dropped, f, fp in rows:
        print("%-26s %5d %8d %s %s %s %s %3s%s" % (
            family, n, dropped, percent(f.get("detection", 0)), percent(f.get("kind", 0)), percent(f.get("facts", 0)),
            percent(f.get("causes", 0)), fp if with_fp else "", "" if n >= min_logs else "  (fewer than %d logs)" % min_logs))


def testdata_rows(check, a, corpus_rows, corpus_small):
    """The second table: testdata's logs by the kind of their golden's first incident."""
    by_kind = {}
    for log, incident in golden_entries():
        by_kind.setdefault(incident["kind"], []).append((log, incident))
    rows = []
    for kind in sorted(by_kind):
        if a.only and kind != a.only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            dropped = rules_without({kind}, os.path.join(tmp, "rules"))
            if not dropped:
                continue  # a kind only the general reader gives: nothing to leave out
            figures = score_goldens(check, a.oomlens, os.path.join(tmp, "rules"), by_kind[kind], a.verbose)
        rows.append((kind, len(by_kind[kind]), len(dropped), figures, 0))
    print()
    print_table("testdata kind left out", rows, a.min_logs, with_fp=False)
    return rows


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
