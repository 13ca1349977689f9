"""A fleet's logs in one report, on Dask (docs/fleet.md).

Each file is one job's log. A Dask bag scans the files on the workers (each file
streamed through the C++ core, gzip and zstd too), and the per-file reports are
combined by the core's merge as a tree reduction, so the result is what
``oomlens merge`` makes of the per-file JSON reports::

    import oomlens.fleet
    fleet = oomlens.fleet.scan(["logs/**/*.log.gz"])          # a local cluster
    fleet = oomlens.fleet.scan(["s3://bucket/jobs/"], client=client)
    print(fleet)                       # failures, most jobs first; totals
    fleet.failures[0].jobs             # how many jobs the top failure hit
    fleet.report                       # the merged oomlens.Report

``python -m oomlens fleet PATHS/GLOBS... [--scheduler tcp://HOST:PORT | --workers N]``
does the same from a shell.
"""
from __future__ import annotations

import argparse
import functools
import glob as _glob
import json as _json
import os
import re
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from . import _core
from ._paths import files_under
from .report import Problem, Report

__all__ = ["scan", "submit", "expand", "FleetReport", "Failure", "Total", "main"]

_READ_BYTES = 1 << 20


@dataclass(frozen=True)
class Failure:
    """Incidents of every job that are the same failure (kind, program, cause,
    memory space and message once its numbers are masked)."""
    fingerprint: str
    kind: str
    code: str
    title: str
    program: str
    cause: str
    memory_space: str
    chip: str
    message: str
    jobs: int
    occurrences: int
    incidents: int
    some_jobs: List[str]
    first_time: str
    last_time: str
    figures: Dict[str, Dict[str, int]]
    summary: str
    advice: List[str]

    @classmethod
    def from_json(cls, j: Dict[str, Any]) -> "Failure":
        return cls(**{name: j[name] for name in cls.__dataclass_fields__})


@dataclass(frozen=True)
class Total:
    """Failures, messages and (except by day) jobs under one key."""
    key: str
    failures: int
    occurrences: int
    jobs: Optional[int] = None


class FleetReport:
    """A merged report summarised by failure across its jobs (its inputs)."""

    def __init__(self, report: Report):
        self.report = report
        self.json: Dict[str, Any] = _json.loads(report._core.fleet("json"))
        j = self.json
        self.jobs: int = j["jobs"]
        self.jobs_with_oom: int = j["jobs_with_oom"]
        self.jobs_unreadable: int = j["jobs_unreadable"]
        self.occurrences: int = j["occurrences"]
        self.occurrences_not_grouped: int = j.get("occurrences_not_grouped", 0)
        self.failures = [Failure.from_json(f) for f in j["failures"]]
        totals = lambda key: [Total(t["key"], t["failures"], t["occurrences"], t.get("jobs")) for t in j[key]]
        self.by_cause, self.by_kind, self.by_chip = totals("by_cause"), totals("by_kind"), totals("by_chip")
        self.by_day, self.top_programs = totals("by_day"), totals("top_programs")
        self.unreadable: List[str] = list(j["unreadable"])
        self.problems = [Problem(p["severity"], p["where"], p["message"], p.get("help", "")) for p in j["problems"]]

    @property
    def read_all(self) -> bool:
        return self.report.read_all

    def __str__(self) -> str:
        return self.render("text")

    def __repr__(self) -> str:
        return (f"<oomlens.fleet.FleetReport: {self.jobs} jobs, {self.jobs_with_oom} with an OOM, "
                f"{len(self.failures)} failures>")

    def render(self, format: str) -> str:
        """text, json, markdown or html (with the totals as charts)."""
        return self.report._core.fleet(format)

    def to_json(self) -> str:
        return self.render("json")

    def to_markdown(self) -> str:
        return self.render("markdown")

    def to_html(self) -> str:
        return self.render("html")

    def _repr_html_(self) -> str:
        return self.report._core.fleet_html_fragment()  # one <div> with scoped styles, as Report's


def _is_url(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def _expand_url(item: str) -> List[str]:
    import fsspec  # only where remote paths are given
    fs, path = fsspec.core.url_to_fs(item)
    if _glob.has_magic(path):
        found = sorted(fs.glob(path))
    elif fs.isdir(path):
        found = sorted(fs.find(path))
    else:
        return [item]
    return [fs.unstrip_protocol(p) for p in found]


def _glob_regex(pattern: str) -> "re.Pattern[str]":
    """A glob as a regex over whole paths: ``**/`` any directories, ``*`` and ``?``
    within one name, ``[...]`` a class, as glob(recursive=True) reads them."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            close = pattern.index("]", i + 2)
            body = pattern[i + 1:close]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = close + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _glob_files(pattern: str) -> List[str]:
    """What a glob names, walked as `oomlens -r` walks a directory: regular files,
    symlinks to them and dangling symlinks (the scan lists those unreadable, as the
    CLI does when the shell expands the glob), in name order, never through a
    symlinked directory (Python's glob follows them: a `latest` link beside its run
    counted the job twice, a link to `..` 41 times, two of them without end), and
    each real file once. FIFOs, devices and sockets are skipped, so a fleet never
    waits for a writer."""
    parts = pattern.split("/")
    literal = parts[:next(i for i, q in enumerate(parts) if _glob.has_magic(q))]
    root = "/".join(literal) or ("/" if pattern.startswith("/") else ".")
    matcher = _glob_regex(pattern if literal or pattern.startswith("/") else "./" + pattern)
    levels = None if "**" in pattern else len(parts) - len(literal)  # without **: as deep as the pattern
    found, real = [], set()
    for directory, dirs, files in os.walk(root):  # symlinked directories are listed, never entered
        dirs.sort()
        names = sorted(files + [d for d in dirs if os.path.islink(os.path.join(directory, d))])
        relative = os.path.relpath(directory, root)
        depth = 0 if relative == "." else relative.count(os.sep) + 1  # of the files listed here: depth + 1
        if levels is not None and depth + 1 >= levels:
            dirs[:] = []
        for name in names:
            path = os.path.join(directory, name)
            dangling = os.path.islink(path) and not os.path.exists(path)
            if not (dangling or os.path.isfile(path)) or not matcher.match(path):
                continue
            key = os.path.realpath(path)
            if key not in real:
                real.add(key)
                found.append(path[2:] if path.startswith("./") and not pattern.startswith("./") else path)
    return sorted(found)


def expand(paths_or_globs: Union[str, Iterable[str]]) -> List[str]:
    """The files the paths name: files as given, directories walked (symlinks not
    followed), globs (``**`` too) expanded, each in name order; URLs (``s3://``,
    ``gs://`` ...) through fsspec. A path or glob that names no file raises
    FileNotFoundError."""
    if isinstance(paths_or_globs, (str, os.PathLike)):
        paths_or_globs = [paths_or_globs]
    files: List[str] = []
    for item in map(os.fspath, paths_or_globs):
        if _is_url(item):
            found = _expand_url(item)
        elif _glob.has_magic(item):
            found = _glob_files(item)
        elif os.path.isdir(item):
            found = files_under(item)
        else:
            found = [item] if os.path.lexists(item) else []
        if not found:
            raise FileNotFoundError(f"{item}: no file matches (oomlens fleet takes log files, directories, globs "
                                    "and fsspec URLs)")
        files.extend(found)
    return files


def _scan_url(url: str, chip: str) -> str:
    """A remote file streamed to the core through a pipe, so that it is never
    held whole in memory (the core decompresses gzip and zstd itself)."""
    import fsspec
    try:
        remote = fsspec.open(url, "rb").open()
    except Exception as e:  # noqa: BLE001: any filesystem's error is a reason to give
        return _core.unreadable(url, f"could not be opened: {e}",
                                "check the URL, and that its filesystem and credentials are set up").json()
    read_end, write_end = os.pipe()
    failed: List[BaseException] = []

    def feed() -> None:
        try:
            with remote, os.fdopen(write_end, "wb") as out:
                for chunk in iter(lambda: remote.read(_READ_BYTES), b""):
                    out.write(chunk)
        except BrokenPipeError:
            pass
        except Exception as e:  # noqa: BLE001
            failed.append(e)

    feeder = threading.Thread(target=feed, name="oomlens-fleet-feed", daemon=True)
    feeder.start()
    try:
        report, _ = _core.scan_fd(read_end, url, chip=chip)
    finally:
        os.close(read_end)
        feeder.join()
    if not failed:
        return report.json()
    j = _json.loads(report.json())  # what was read counts; the input is marked unread
    j["inputs"][0]["ok"] = False
    j["problems"].insert(0, {"severity": "error", "where": url, "message": f"read failed: {failed[0]}",
                             "help": "the report holds what was read before the error"})
    return _json.dumps(j)


def _scan_one(path: str, chip: str) -> str:
    """One job's log: its report as JSON (the form parts travel in)."""
    if _is_url(path):
        return _scan_url(path, chip)
    report, _ = _core.scan_paths([path], chip=chip, jobs=1)
    return report.json()


def _merge_parts(parts: Iterable[str], chip: str) -> str:
    return _core.merge_json(list(parts), chip=chip)


def _files_per_task(files: int, workers: int) -> int:
    """About eight tasks per worker, at most 256 files each."""
    return max(1, min(256, -(-files // max(1, workers * 8))))


def submit(paths: Sequence[str], client, *, chip: Optional[str] = None, files_per_task: Optional[int] = None,
           split_every: int = 8):
    """Starts the scan of expanded paths on client's cluster: a Future of the
    merged report's JSON. scan() waits for it."""
    import dask.bag as db
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    size = files_per_task or _files_per_task(len(paths), workers)
    merge = functools.partial(_merge_parts, chip=chip or "")
    reports = db.from_sequence(list(paths), partition_size=size).map(_scan_one, chip or "")
    return client.compute(reports.reduction(merge, merge, split_every=split_every))


def _local_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def scan(paths_or_globs: Union[str, Iterable[str]], *, client=None, workers: Optional[int] = None,
         chip: Optional[str] = None, files_per_task: Optional[int] = None, split_every: int = 8) -> FleetReport:
    """Scans a fleet's logs on Dask and summarises them by failure.

    client: a distributed.Client; without one, a local cluster of `workers`
    processes (default: the cores, at most 8) runs for this call. chip gives the
    capacity where the logs do not. Files that cannot be read are listed in
    .unreadable and .problems; the run completes.
    """
    paths = expand(paths_or_globs)
    if client is not None:
        return FleetReport(Report.from_json(submit(paths, client, chip=chip, files_per_task=files_per_task,
                                                   split_every=split_every).result()))
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=workers or _local_workers(), threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as local:
        return scan(paths, client=local, chip=chip, files_per_task=files_per_task, split_every=split_every)


def _arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m oomlens fleet",
        description="A fleet's logs (one file per job) in one report, scanned on Dask.",
        epilog="Exit status: 0 no OOM, 1 an OOM was found, 2 a file could not be read whole or an error.")
    parser.add_argument("paths", nargs="+", help="log files, directories, globs (quote them) or fsspec URLs")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", help="address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786")
    where.add_argument("--workers", type=int, help="processes of the local cluster (default: the cores, at most 8)")
    parser.add_argument("-f", "--format", default="text", choices=["text", "json", "markdown", "html"])
    parser.add_argument("-o", "--output", help="write the report to this file instead of stdout")
    parser.add_argument("--chip", help="accelerator (v4, v5e, a100-80 ...) for its memory size")
    parser.add_argument("--files-per-task", type=int, help="files scanned by one task (default: about 8 tasks "
                        "per worker)")
    parser.add_argument("--fail-on", choices=["oom", "never"], default="oom", help="exit 1 on an OOM (default)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print no summary line on stderr")
    args = parser.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        parser.error("--workers must be 1 or more")
    if args.files_per_task is not None and args.files_per_task < 1:
        parser.error("--files-per-task must be 1 or more")
    return args


def _run(args: argparse.Namespace) -> FleetReport:
    options = dict(chip=args.chip, files_per_task=args.files_per_task)
    if not args.scheduler:
        return scan(args.paths, workers=args.workers, **options)
    from distributed import Client
    with Client(args.scheduler) as client:
        return scan(args.paths, client=client, **options)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m oomlens fleet ...`: returns the exit status."""
    args = _arguments(sys.argv[1:] if argv is None else argv)
    started = time.monotonic()
    try:
        fleet = _run(args)
    except (FileNotFoundError, ValueError, OSError) as e:
        print(f"oomlens fleet: error: {e}", file=sys.stderr)
        return 2
    text = fleet.render(args.format)
    try:
        if args.output:
            with open(args.output, "w", encoding="utf-8") as out:
                out.write(text)
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except OSError as e:
        print(f"oomlens fleet: error: writing the report: {e} (help: check the disk and the path)", file=sys.stderr)
        return 2
    if not args.quiet:
        print(f"oomlens fleet: {fleet.jobs} files in {time.monotonic() - started:.1f} s", file=sys.stderr)
        for problem in fleet.problems:  # errors, and the warning that totals count only what was kept
            if problem.severity == "error" or "counted but not kept" in problem.message:
                print(f"oomlens fleet: {problem}", file=sys.stderr)
    if not fleet.read_all:
        return 2
    return 1 if fleet.jobs_with_oom and args.fail_on == "oom" else 0
