"""The package as pip installs it: typed (py.typed and a stub of the C++ core that
matches it), a console script, a short repr, and a build that says what it needs."""
import ast
import os
import re
import subprocess
import sys

import oomlens
from oomlens import _core
from conftest import ROOT

PACKAGE = os.path.dirname(oomlens.__file__)


def stub_signatures():
    """name -> parameter names, for the functions and Report methods of _core.pyi."""
    with open(os.path.join(ROOT, "src/python/oomlens/_core.pyi"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = [a.arg for a in node.args.args]
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                is_property = any(getattr(d, "id", "") == "property" for d in item.decorator_list) \
                    if isinstance(item, ast.FunctionDef) else False
                if isinstance(item, ast.FunctionDef) and not is_property:
                    out[f"{node.name}.{item.name}"] = [a.arg for a in item.args.args]
    return out


def module_signature(function):
    """Parameter names from the signature pybind11 writes first in a docstring."""
    head = function.__doc__.splitlines()[0]
    params = head[head.index("(") + 1:head.rindex(") ->")]
    parts, depth, part = [], 0, ""
    for c in params:  # a comma inside List[Tuple[str, str]] separates nothing
        depth += (c in "([") - (c in ")]")
        if c == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += c
    return [re.match(r"\s*(\w+)", p).group(1) for p in parts + [part] if p.strip()]


def test_the_stub_of_the_core_matches_the_core():
    stub = stub_signatures()
    core = {name: getattr(_core, name) for name in dir(_core)
            if not name.startswith("_") and callable(getattr(_core, name)) and name != "Report"}
    for name in dir(_core.Report):
        if not name.startswith("_") and callable(getattr(_core.Report, name)):
            core["Report." + name] = getattr(_core.Report, name)
    assert sorted(stub) == sorted(core), "functions in _core.pyi and in the module differ"
    assert isinstance(_core.Report.incident_count, property)  # the stub's one property
    for name, function in core.items():
        assert stub[name] == module_signature(function), name


def test_the_package_is_typed():
    assert os.path.exists(os.path.join(PACKAGE, "py.typed"))
    assert os.path.exists(os.path.join(PACKAGE, "_core.pyi"))
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        project = f.read()
    assert 'oomlens = ["py.typed", "*.pyi"]' in project, "the wheel must carry them"


def test_the_console_script_is_the_command_line():
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        script = re.search(r'^oomlens = "([\w.]+):(\w+)"', f.read(), re.M)
    assert script, "pyproject.toml declares no oomlens console script"
    module, function = script.groups()
    log = os.path.join(ROOT, "testdata/examples/multihost_e0101.log")
    run = subprocess.run([sys.executable, "-c", f"import sys; from {module} import {function} as m; "
                          f"sys.argv = ['oomlens', {log!r}]; sys.exit(m())"], capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert run.stdout.startswith("oomlens: 1 OOM incident in ")


def test_an_incident_prints_in_one_short_line():
    dump = ["E1130 10:00:00.000000 7 pjrt.cc:1] RESOURCE_EXHAUSTED: Error allocating device buffer: "
            "Attempting to allocate 512.00M. That was not possible. There are 96.00M free.; (0x0x0_HBM0)",
            "Live allocations at OOM: 3000 blocks"]
    dump += [f"  offset=0x{k * 4096:x} size=4.00M state=allocated owner=jit_step shape=f32[1024,1024] id={k}"
             for k in range(3000)]
    incident = oomlens.diagnose("\n".join(dump) + "\n").incidents[0]
    assert len(incident.allocations) == 3000
    text = repr(incident)
    assert len(text) < 200 and "\n" not in text, text
    assert text == "<oomlens.Incident E0100 tpu_buffer_alloc: leak (0.92), 1 occurrence, first at <paste>:1>"


def test_a_build_without_the_wheel_package_says_what_to_install():
    code = ("import sys; sys.modules['wheel'] = None; sys.argv = ['setup.py', 'bdist_wheel']; "
            "import runpy; runpy.run_path('setup.py', run_name='__main__')")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode != 0
    assert "apt-get install python3-wheel" in run.stderr, run.stderr
    assert "invalid command" not in run.stderr
