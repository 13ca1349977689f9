"""oomlens: why an ML job ran out of accelerator memory, and what to change.

The C++ core the `oomlens` command uses, in Python::

    import oomlens
    report = oomlens.diagnose(message)          # one pasted message
    report = oomlens.scan(["worker-0.log.gz"])  # logs, each scanned alone then merged
    print(report)                               # the text report; a notebook shows HTML
    report.incidents[0].cause                   # "oversize", "fragmentation", ...

    oomlens.install()   # diagnose OOM exceptions as they are raised (see oomlens.hook)

docs/python.md has the whole API.
"""
from __future__ import annotations

import os
from typing import Iterable, List, Optional, Sequence, Union

from . import _core
from ._paths import files_under as _files_under
from ._text import TextLike as _TextLike
from ._text import as_bytes as _as_bytes
from .hook import install, uninstall, watch
from .report import Alternative, Diff, Incident, Input, Location, Problem, Report

__version__ = _core.__version__
__all__ = ["diagnose", "scan", "merge", "diff", "Report", "Incident", "Input", "Problem", "Location",
           "Alternative", "Diff", "install", "uninstall", "watch", "__version__"]

PathOrFile = Union[str, bytes, "os.PathLike[str]", "typing.IO"]
_MAX_JOBS = 256  # as the command line's -j


def diagnose(text: _TextLike, *, chip: Optional[str] = None, name: str = "<paste>") -> Report:
    """Diagnoses pasted text: one message, or a whole log held in memory (str, bytes
    or any bytes-like object; invalid UTF-8 is read as the command line reads it).

    chip (v4, v5e, v5p, a100-80, h100 ...) gives the capacity when the log does not.
    """
    return Report(_core.diagnose(_as_bytes(text), name=name, chip=chip or ""))


def _expand(item) -> List[Union[str, object]]:
    if hasattr(item, "read"):
        return [item]
    path = os.fsdecode(os.fspath(item))  # bytes paths too
    if os.path.isdir(path):
        return _files_under(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file (oomlens.scan takes log files, directories or file objects)")
    return [path]


def scan(inputs: Union[PathOrFile, Iterable[PathOrFile]], *, chip: Optional[str] = None,
         jobs: Optional[int] = None) -> Report:
    """Scans logs: paths (gzip and zstd too, read as streams), directories (every file
    under them) or open file objects. Each is scanned alone and the reports merged in
    order, as `oomlens a.log b.log` does, on `jobs` threads (default: the cores).

    An input that cannot be read whole is listed in report.problems and
    report.read_all is False; a path that does not exist raises FileNotFoundError.
    """
    if isinstance(inputs, (str, bytes, os.PathLike)) or hasattr(inputs, "read"):
        inputs = [inputs]
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= _MAX_JOBS):
        raise ValueError(f"jobs={jobs!r}: give a number of threads from 1 to {_MAX_JOBS}, or None for the cores")
    items = [x for item in inputs for x in _expand(item)]
    jobs = jobs or min(os.cpu_count() or 1, 16)
    if all(isinstance(x, str) for x in items):
        core, read_all = _core.scan_paths(items, chip=chip or "", jobs=jobs)
        return Report(core, read_all)
    parts = []
    for x in items:
        if isinstance(x, str):
            parts.append(_core.scan_paths([x], chip=chip or "", jobs=1)[0])
        else:
            name = getattr(x, "name", "<file>")
            name = os.fsdecode(name) if isinstance(name, (str, bytes, os.PathLike)) else str(name)
            parts.append(_core.scan_texts([(name, _as_bytes(x.read()))], chip=chip or ""))
    return Report(parts[0] if len(parts) == 1 else _core.merge(parts, chip=chip or ""))


def _core_report(item: Union[Report, str]) -> "_core.Report":
    if isinstance(item, Report):
        return item._core
    return _core.read_report(item)


def merge(reports: Sequence[Union[Report, str]], *, chip: Optional[str] = None) -> Report:
    """Combines reports (per shard or host; Report objects or their JSON) into one,
    as `oomlens merge` does."""
    return Report(_core.merge([_core_report(r) for r in reports], chip=chip or ""))


def diff(before: Union[Report, str], after: Union[Report, str]) -> Diff:
    """Compares two runs, as `oomlens diff` does: what appeared, vanished or moved."""
    return Diff(_core.diff(_core_report(before), _core_report(after)))
