#!/usr/bin/python3
"""The fleet on Dask, measured: files per second and peak memory per worker with
1 and 2 workers of a local cluster on a synthetic fleet (tests/gen/fleet.py), the
cost per file as the fleet grows, and the checks of docs/fleet.md's "done when":
the 2-worker report equals `oomlens merge` of the per-file reports, and equals it
again when a worker is killed mid-run. Prints figures; asserts only equality
(machines here are shared: read the times, do not test them).

    PYTHONPATH=build/python tests/bench/fleet.py [JOBS] [BUILD_DIR]     (default 5000, build)
"""
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JOBS = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
BIN = os.path.join(os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "build")), "oomlens")

import distributed  # noqa: E402
import oomlens.fleet  # noqa: E402


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cluster(workers):
    c = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    client = distributed.Client(c)
    client.run(lambda: __import__("oomlens.fleet"))  # imported before the clock starts
    return c, client


def timed_scan(paths, client, **options):
    started = time.monotonic()
    merged = oomlens.fleet.submit(paths, client, **options).result()
    return merged, time.monotonic() - started


def fleet_of(merged_json):
    return oomlens.Report.from_json(merged_json).fleet().to_json()


def per_file_merge(paths, work):
    reports = []
    for k, path in enumerate(paths):
        reports.append(os.path.join(work, f"{k:06d}.json"))
        with open(reports[-1], "w") as out:
            subprocess.run([BIN, "--format", "json", "-q", path], stdout=out, check=False)
    done = subprocess.run([BIN, "--format", "json", "-q", "--fleet", "merge", *reports], capture_output=True, text=True)
    return done.stdout


def killed_worker_run(paths):
    c, client = cluster(2)
    try:
        victim, pid = sorted(client.run(os.getpid).items())[0]
        future = oomlens.fleet.submit(paths, client)
        time.sleep(0.5)
        killed_before_the_end = not future.done()
        os.kill(pid, signal.SIGKILL)
        return future.result(), killed_before_the_end
    finally:
        client.close()
        c.close()


def main():
    work = tempfile.mkdtemp(prefix="oomlens-fleet-bench.")
    try:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gen", "fleet.py"), work, "--jobs", str(JOBS)],
                       check=True)
        paths = oomlens.fleet.expand(os.path.join(work, "logs"))
        size = sum(os.path.getsize(p) for p in paths)
        print(f"fleet: {len(paths)} logs, {size / 2**20:.1f} MiB ({sum(p.endswith('.gz') for p in paths)} gzip)")

        started = time.monotonic()
        subprocess.run(["grep", "-r", "-c", "-E", "RESOURCE_EXHAUSTED|out of memory|Out of memory",
                        os.path.join(work, "logs")], stdout=subprocess.DEVNULL, check=False)
        grep_s = time.monotonic() - started
        started = time.monotonic()
        subprocess.run([BIN, "-r", "-q", "--fleet", os.path.join(work, "logs")], stdout=subprocess.DEVNULL)
        cli_s = time.monotonic() - started
        print(f"reference: grep -r -c {grep_s:.2f} s; oomlens -r --fleet (one process, threads) {cli_s:.2f} s")

        results = {}
        print("| workers | files | seconds | files/s | peak RSS per worker | client peak RSS |")
        print("|---:|---:|---:|---:|---|---:|")
        for workers in (1, 2):
            c, client = cluster(workers)
            try:
                merged, seconds = timed_scan(paths, client)
                rss = sorted(client.run(peak_rss_mib).values())
                results[workers] = (merged, seconds)
                print(f"| {workers} | {len(paths)} | {seconds:.2f} | {len(paths) / seconds:.0f} | "
                      f"{', '.join(f'{r:.0f} MiB' for r in rss)} | {peak_rss_mib():.0f} MiB |")
                if workers == 2:
                    for share in (4, 2):
                        part = paths[: len(paths) // share]
                        _, s = timed_scan(part, client)
                        print(f"| 2 | {len(part)} | {s:.2f} | {len(part) / s:.0f} | (cost per file as the fleet "
                              f"grows: {1000 * s / len(part):.2f} ms) | |")
            finally:
                client.close()
                c.close()
        print(f"speed-up 1 -> 2 workers: {results[1][1] / results[2][1]:.2f}x "
              f"(grep: {results[2][1] / grep_s:.1f}x the time of grep -r -c)")

        reference = per_file_merge(paths, tempfile.mkdtemp(dir=work))
        assert fleet_of(results[1][0]) == reference, "1 worker differs from oomlens merge --fleet"
        assert fleet_of(results[2][0]) == reference, "2 workers differ from oomlens merge --fleet"
        print("equal: the fleet report of 1 worker, of 2 workers, and `oomlens merge --fleet` of the per-file reports")
        command = [sys.executable, "-m", "oomlens", "fleet", "--workers", "2", "--format", "json", "-q",
                   os.path.join(work, "logs")]
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 1 and done.stdout == reference, "python -m oomlens fleet differs"
        print(f"equal: `python -m oomlens fleet --workers 2` ({time.monotonic() - started:.1f} s, cluster start "
              "included)")
        killed, mid_run = killed_worker_run(paths)
        assert fleet_of(killed) == reference, "a killed worker changed the report"
        print(f"equal after a worker was SIGKILLed {'mid-run' if mid_run else '(the run had ended first)'}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
