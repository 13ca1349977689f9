"""docs/python.md's recipes run as tests: its >>> session (doctest), and the hook's
script, whose report must be what the page shows under it."""
import doctest
import os
import re
import subprocess
import sys

import oomlens
from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "python.md")


def block_after(text, marker, language):
    """The code block of the given language that first follows marker."""
    at = text.index(marker)
    match = re.compile(r"```" + language + r"\n(.*?)```", re.S).search(text, at)
    return match.group(1)


def test_the_session_in_the_docs_runs_as_shown(monkeypatch):
    monkeypatch.chdir(ROOT)  # its paths are the source tree's
    with open(DOC, encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    session = "\n".join(block for block in blocks if ">>> " in block)
    test = doctest.DocTestParser().get_doctest(session, {"oomlens": oomlens}, "docs/python.md", DOC, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.tries >= 5 and runner.failures == 0


def test_the_hook_prints_what_the_docs_show(tmp_path):
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    script = block_after(text, "A script (`train.py`)", "python")
    shown = block_after(text, "prints, with exit status 1", "text")
    (tmp_path / "train.py").write_text(script)
    run = subprocess.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(oomlens.__file__))})
    assert run.returncode == 1
    report = shown[shown.index("oomlens: "):].splitlines()  # the traceback above it is Python's
    got = run.stderr.splitlines()
    at = 0
    for line in report:
        assert line in got[at:], f"docs/python.md shows {line!r}, the hook printed:\n{run.stderr}"
        at = got.index(line, at) + 1
