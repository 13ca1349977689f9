"""oomlens.fleet on a real distributed.LocalCluster (processes, 2 workers): the
fleet report equals what `oomlens merge --fleet` makes of the per-file JSON
reports, a worker killed mid-run changes nothing, unreadable files are listed.

The merged report under it equals `oomlens merge`'s too, but for which 20 outliers
each incident lists as examples: those can depend on how the tree grouped the
parts (docs/json-output.md); seen.ranges, which the fleet reads, never does."""
import gzip
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import distributed  # noqa: E402  (Debian: python3-distributed, installed by ./build.sh test)
import oomlens  # noqa: E402
import oomlens.fleet  # noqa: E402

from conftest import BIN, ROOT, cli  # noqa: E402

JOBS = 240


def generate(directory, jobs, seed=7):
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen", "fleet.py"), str(directory), "--jobs",
                    str(jobs), "--seed", str(seed)], check=True)
    with open(os.path.join(directory, "manifest.json")) as f:
        return os.path.join(str(directory), "logs"), json.load(f)


def without_outliers(report_json):
    report = json.loads(report_json)
    for incident in report["incidents"]:
        incident.pop("outliers")
    return report


def merge_of_per_file_reports(paths, directory, *extra):
    """What `oomlens merge` makes of each file's `oomlens --format json` report."""
    reports = []
    for k, path in enumerate(paths):
        code, out, err = cli("--format", "json", "-q", path)
        assert code in (0, 1, 2), err
        reports.append(os.path.join(directory, f"{k:06d}.json"))
        with open(reports[-1], "w") as f:
            f.write(out)
    code, out, err = cli("--format", "json", "-q", *extra, "merge", *reports)
    assert code in (0, 1, 2), err
    return out


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    directory = tmp_path_factory.mktemp("fleet")
    logs, manifest = generate(directory, JOBS)
    paths = oomlens.fleet.expand(logs)
    reports = tmp_path_factory.mktemp("reports")
    return {"logs": logs, "paths": paths, "manifest": manifest,
            "merged": merge_of_per_file_reports(paths, reports),
            "merged_fleet": merge_of_per_file_reports(paths, reports, "--fleet")}


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as c, \
            distributed.Client(c) as client:
        yield client


def test_the_fleet_report_is_what_merge_makes_of_the_per_file_reports(fleet, client):
    report = oomlens.fleet.scan(fleet["logs"], client=client, files_per_task=7, split_every=3)
    assert len(report.report.inputs) == JOBS
    assert report.to_json() == fleet["merged_fleet"]
    assert without_outliers(report.report.to_json()) == without_outliers(fleet["merged"])


def test_any_task_size_and_tree_shape_gives_the_same_report(fleet, client):
    for files_per_task, split_every in ((1, 2), (50, 8), (JOBS, 2)):
        report = oomlens.fleet.scan(fleet["paths"], client=client, files_per_task=files_per_task,
                                    split_every=split_every)
        assert report.to_json() == fleet["merged_fleet"], (files_per_task, split_every)
        assert without_outliers(report.report.to_json()) == without_outliers(fleet["merged"])


def test_the_injected_failures_are_found_with_their_jobs_and_repeats(fleet, client):
    report = oomlens.fleet.scan(fleet["logs"], client=client)
    manifest = fleet["manifest"]
    assert report.jobs == manifest["jobs"]
    assert report.jobs_with_oom == manifest["jobs_with_oom"]
    found = sorted((f.kind, f.program, f.jobs, f.occurrences) for f in report.failures)
    assert found == sorted((f["kind"], f["program"], f["jobs"], f["occurrences"]) for f in manifest["failures"])
    assert sum(t.occurrences for t in report.by_kind) == report.occurrences
    assert report.occurrences_not_grouped == 0  # every incident kept: the tables hold every message
    assert report.by_day and all(t.jobs is None for t in report.by_day)
    assert report.failures[0].first_time <= report.failures[0].last_time
    assert "By cause" in str(report) and "<svg" in report._repr_html_()


def _finished_on(client, address):
    def count(dask_scheduler, address=address):
        worker = dask_scheduler.workers.get(address)
        return len(worker.has_what) if worker else 0
    return client.run_on_scheduler(count)


def test_a_worker_killed_mid_run_changes_nothing(fleet):
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as c, \
            distributed.Client(c) as client:
        victim, pid = sorted(client.run(os.getpid).items())[0]
        future = oomlens.fleet.submit(fleet["paths"], client, files_per_task=1)
        deadline = time.monotonic() + 60
        while _finished_on(client, victim) < 5 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert not future.done(), "the run ended before the worker could be killed: give it more files"
        os.kill(pid, signal.SIGKILL)
        merged = future.result(timeout=300)
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert oomlens.Report.from_json(merged).fleet().to_json() == fleet["merged_fleet"]
    assert without_outliers(merged) == without_outliers(fleet["merged"])


def test_unreadable_corrupt_and_empty_files_are_listed_and_the_run_completes(tmp_path, client):
    logs, _ = generate(tmp_path / "gen", 12)
    good = oomlens.fleet.expand(logs)
    bad = tmp_path / "bad"
    bad.mkdir()
    with open(good[9], "rb") as f:  # job 9 is gzip
        whole = f.read()
    (bad / "a-corrupt.log.gz").write_bytes(whole[:20] + bytes(b ^ 0x5A for b in whole[20:]))
    (bad / "b-truncated.log.gz").write_bytes(whole[: len(whole) // 2])
    (bad / "c-empty.log").write_bytes(b"")
    os.symlink(str(tmp_path / "nowhere.log"), str(bad / "d-dangling.log"))
    paths = good + [str(bad / n) for n in ("a-corrupt.log.gz", "b-truncated.log.gz", "c-empty.log", "d-dangling.log")]
    report = oomlens.fleet.scan(paths, client=client, files_per_task=3)
    assert report.jobs == len(paths)
    assert report.unreadable == [str(bad / "a-corrupt.log.gz"), str(bad / "b-truncated.log.gz"),
                                 str(bad / "d-dangling.log")]
    assert not report.read_all
    assert all(p.severity == "error" for p in report.problems[:3])
    assert report.to_json() == merge_of_per_file_reports(paths, tmp_path, "--fleet")


def test_globs_walk_as_directories_do_and_keep_dangling_links(tmp_path):
    # attack review W6: a glob followed symlinked directories (a `latest` link
    # counted a job twice, a link to `..` 41 times); W7: it dropped a dangling link
    runs = tmp_path / "runs"
    (runs / "run-0042").mkdir(parents=True)
    (runs / "run-0042" / "worker.log").write_text("x\n")
    os.symlink("run-0042", str(runs / "latest"))
    os.symlink("..", str(runs / "run-0042" / "up"))
    os.symlink(str(tmp_path / "nowhere.log"), str(runs / "run-0042" / "gone.log"))
    os.mkfifo(str(runs / "run-0042" / "pipe.log"))  # skipped, as -r skips it: nothing waits for a writer
    for pattern in ("runs/**/*.log", "runs/*/*.log"):
        found = oomlens.fleet.expand(str(tmp_path / pattern))
        assert found == [str(runs / "run-0042" / "gone.log"), str(runs / "run-0042" / "worker.log")], pattern
    walked = oomlens.fleet.expand(str(runs))
    assert str(runs / "run-0042" / "worker.log") in walked and len(walked) == 1


def test_remote_files_stream_through_fsspec(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    logs, _ = generate(tmp_path / "gen", 10)
    local = oomlens.fleet.expand(logs)
    fs = fsspec.filesystem("memory")
    for path in local:
        with open(path, "rb") as f:
            fs.pipe("/fleet/" + os.path.basename(path), f.read())
    urls = oomlens.fleet.expand("memory://fleet/")
    assert [u.rsplit("/", 1)[1] for u in urls] == [os.path.basename(p) for p in local]
    for url, path in zip(urls, local):  # gzip too: the core decompresses what the pipe brings
        remote = json.loads(oomlens.fleet._scan_one(url, ""))
        here = json.loads(oomlens.fleet._scan_one(path, ""))
        assert remote["incidents"] and remote["inputs"][0]["name"] == url or not here["incidents"]
        assert [i["facts"] for i in remote["incidents"]] == [i["facts"] for i in here["incidents"]]
        assert remote["inputs"][0]["lines"] == here["inputs"][0]["lines"]
    missing = json.loads(oomlens.fleet._scan_one("memory://fleet/none.log", ""))
    assert missing["inputs"][0]["ok"] is False
    assert "could not be opened" in missing["problems"][0]["message"]


def test_python_m_oomlens_fleet_on_a_local_cluster(fleet):
    done = subprocess.run([sys.executable, "-m", "oomlens", "fleet", "--workers", "2", "--format", "json", "-q",
                           fleet["logs"]], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr  # OOMs found
    assert done.stdout == fleet["merged_fleet"]
    missing = subprocess.run([sys.executable, "-m", "oomlens", "fleet", "--workers", "1", "nowhere/*.log"],
                             capture_output=True, text=True, timeout=300)
    assert missing.returncode == 2
    assert "nowhere/*.log: no file matches" in missing.stderr
    assert subprocess.run([BIN, "--version"], capture_output=True).returncode == 0
