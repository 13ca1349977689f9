"""Memory snapshots read by oomlens against PyTorch's own reader of them.

Debian's python3-torch ships torch/cuda/_memory_viz.py, whose stats() sums a
snapshot's segments and blocks by state; oomlens's figures for the same pickle
must be those sums, byte for byte. The snapshots are generated here by
tests/gen/torch_snapshots.py (the same code that wrote testdata/snapshots), so a
change to the generator is checked too.
"""
import gzip
import os
import pickle
import subprocess
import sys

import pytest

from conftest import ROOT
import oomlens

memory_viz = pytest.importorskip("torch.cuda._memory_viz")


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory):
    out = tmp_path_factory.mktemp("snapshots")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests/gen/torch_snapshots.py"), str(out)], check=True)
    return out


def load(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        return pickle.load(f)


@pytest.mark.parametrize("name", ["fragmented.pickle", "expandable-aggregate.pickle.gz"])
def test_figures_are_pytorchs_own_sums(snapshots, name):
    path = snapshots / name
    stats = memory_viz.stats(load(path)["segments"])  # asserts each segment's blocks sum to its size
    report = oomlens.scan([str(path)])
    assert len(report.incidents) == 1
    incident = report.incidents[0]
    assert incident.record
    assert incident.facts["reserved_bytes"] == stats["total_size"].value
    assert incident.facts["allocated_bytes"] == stats["active_allocated"].value
    assert incident.derived["free_total_bytes"] == stats["inactive"].value
    assert incident.derived["allocation_count"] == sum(len(s["blocks"]) for s in load(path)["segments"])


def test_the_committed_snapshots_are_the_generators(snapshots):
    for name in ("fragmented.pickle", "two-devices.pickle", "legacy-history.pickle"):
        committed = load(os.path.join(ROOT, "testdata/snapshots", name))
        assert committed == load(snapshots / name), name


def test_the_older_layout_reads_as_pytorch_reads_it(snapshots):
    path = snapshots / "legacy-history.pickle"
    stats = memory_viz.stats(load(path))  # a list of segments, as PyTorch 1.13 wrote
    report = oomlens.scan([str(path)])
    assert report.incidents == []
    (warning,) = [p for p in report.problems if "no OOM in its trace" in p.message]
    reserved = f"{stats['total_size'].value / 2**30:.2f}G reserved"
    assert reserved in warning.message


def test_a_joined_snapshot_is_one_incident_in_python(snapshots):
    log = os.path.join(ROOT, "testdata/snapshots/fragmented-train.log")
    report = oomlens.scan([log, str(snapshots / "fragmented.pickle")])
    (incident,) = report.incidents
    assert incident.cause == "fragmentation"
    assert [str(r) for r in incident.records] == [str(snapshots / "fragmented.pickle")]
    assert [i.record for i in report.inputs] == ["", "memory snapshot"]
