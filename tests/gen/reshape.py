#!/usr/bin/env python3
"""Re-shapes a log the way pasting it into a bug report, a chat or an email does.

Usage:
  tests/gen/reshape.py SHAPE [--seed N] < in.log > out.log
  tests/gen/reshape.py --corpus SHAPE SRC_DIR DST_DIR [--seed N]

SHAPE is one re-shaping or several joined with '+', applied in order:
  wrapN       wrap every line at N columns wherever a space falls (also inside a
              sentence, before a number, between a number and its unit)
  indentN     wrap at N columns, continuation lines indented by two spaces
  quote       every line quoted with '> '
  bullets     every line a markdown list item ('- ', '* ', '1. ' in turn)
  bold        figures (12.00G, 3.95 GiB, 147.64M) in **bold**
  backticks   every non-empty line wrapped in inline backticks
  fence       the whole text inside a ``` code fence
  entities    > < & ' " written as HTML entities
  crlf        CRLF line ends
  gutter      line-number gutters ('  12 | ')
  random      a seeded random combination of the above (widths 30-160)

--corpus re-shapes every *.log of SRC_DIR into DST_DIR and copies its MANIFEST.json,
so that a corpus checker scores the re-shaped logs like the originals.
Deterministic for a given seed.
"""
import os
import random
import re
import shutil
import sys

FIGURE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?\s?(?:[KMGTP]i?B|[KMGTP]|B|bytes)?)(?![\w.])")


def wrap_line(line, width, indent=""):
    """Greedy wrap at spaces; a word longer than the width stays whole."""
    if len(line) <= width:
        return [line]
    lead = re.match(r"\s*", line).group(0)
    words = line[len(lead):].split(" ")
    out, current = [], lead + words[0]
    for word in words[1:]:
        if len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            out.append(current)
            current = indent + word
    out.append(current)
    return out


def wrap(lines, width, indent=""):
    return [piece for line in lines for piece in wrap_line(line, width, indent)]


def bold(lines):
    return [FIGURE.sub(lambda m: "**" + m.group(1) + "**" if re.search(r"[KMGTPB]", m.group(1)) else m.group(1), l)
            for l in lines]


def bullets(lines):
    markers = ["- ", "* ", "1. "]
    return [markers[i % 3] + l if l.strip() else l for i, l in enumerate(lines)]


def entities(lines):
    table = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&#39;", '"': "&quot;"}
    return ["".join(table.get(c, c) for c in l) for l in lines]


def apply(shape, lines, rng):
    if shape.startswith("wrap"):
        return wrap(lines, int(shape[4:]))
    if shape.startswith("indent"):
        return wrap(lines, int(shape[6:]), "  ")
    if shape == "quote":
        return ["> " + l if l else ">" for l in lines]
    if shape == "bullets":
        return bullets(lines)
    if shape == "bold":
        return bold(lines)
    if shape == "backticks":
        return ["`" + l + "`" if l.strip() else l for l in lines]
    if shape == "fence":
        return ["```"] + lines + ["```"]
    if shape == "entities":
        return entities(lines)
    if shape == "gutter":
        return ["%4d | %s" % (i + 1, l) for i, l in enumerate(lines)]
    if shape == "crlf":
        return [l + "\r" for l in lines]
    if shape == "random":
        return random_shape(lines, rng)
    sys.exit("reshape.py: unknown shape '%s' (see --help)" % shape)


def random_shape(lines, rng):
    width = rng.randrange(30, 161, 10)
    steps = [rng.choice(["wrap%d" % width, "indent%d" % width])]
    steps += rng.sample(["quote", "bullets", "bold", "backticks", "entities", "crlf"], rng.randrange(0, 3))
    if rng.random() < 0.3:
        steps.append("fence")
    order = ["bold", "backticks", "entities", "wrap", "indent", "bullets", "quote", "fence", "crlf"]
    steps.sort(key=lambda s: next(i for i, o in enumerate(order) if s.startswith(o)))
    for step in steps:
        lines = apply(step, lines, rng)
    return lines


def reshape(text, shape, seed):
    rng = random.Random(seed)
    lines = text.split("\n")
    trailing = lines and lines[-1] == ""
    if trailing:
        lines.pop()
    lines = [l.rstrip("\r") for l in lines]
    for step in shape.split("+"):
        lines = apply(step, lines, rng)
    return "\n".join(lines) + ("\n" if trailing else "")


def main(argv):
    seed = 1
    if "--seed" in argv:
        i = argv.index("--seed")
        seed = int(argv[i + 1])
        del argv[i:i + 2]
    if len(argv) == 4 and argv[0] == "--corpus":
        shape, src, dst = argv[1:]
        os.makedirs(dst, exist_ok=True)
        for name in sorted(os.listdir(src)):
            if name.endswith(".log"):
                with open(os.path.join(src, name), encoding="utf-8", errors="surrogateescape", newline="") as f:
                    text = f.read()
                out = reshape(text, shape, seed + sum(map(ord, name)))
                with open(os.path.join(dst, name), "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
                    f.write(out)
        shutil.copy(os.path.join(src, "MANIFEST.json"), os.path.join(dst, "MANIFEST.json"))
        return
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.exit(__doc__)
    text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    sys.stdout.buffer.write(reshape(text, argv[0], seed).encode("utf-8", "surrogateescape"))


if __name__ == "__main__":
    main(sys.argv[1:])
