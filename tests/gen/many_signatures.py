#!/usr/bin/env python3
"""Writes a rule file with N made-up signatures, to check that the scan's cost stays
flat with the number of rules (tests/bench/compare.sh). Deterministic; each
signature has its own literal, shaped like an error message, which the generated
logs never print.

    python3 tests/gen/many_signatures.py 300 > DIR/many.json
"""
import json
import random
import sys


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 8)
    syllables = ["ka", "zu", "mor", "tel", "vex", "qui", "dra", "ol", "pin", "gra", "sho", "ny"]
    endings = ["buffer exhausted", "arena is full", "could not map pages", "pool overflow", "region denied"]
    signatures = []
    for k in range(count):
        name = "".join(rng.choice(syllables) for _ in range(3)).capitalize()
        literal = f"{name}{k} {rng.choice(endings)}"
        signatures.append({
            "id": f"bench_generated_{k}",
            "kind": "host_oom",
            "title": f"generated signature {k} (benchmark)",
            "description": "Made up by tests/gen/many_signatures.py to measure the cost of many rules.",
            "literals": [literal],
            "start": literal + r" at \d+ bytes",
            "facts": [r" at (?P<requested_bytes>\d+) bytes"],
            "samples": [{"text": f"{literal} at 1234 bytes", "expect": {"requested_bytes": "1234B"}}],
        })
    json.dump({"version": 1, "description": "generated benchmark signatures", "signatures": signatures},
              sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
