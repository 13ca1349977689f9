"""Allocators' records read by oomlens against the owners' own readers of them.

Debian's python3-torch ships torch/cuda/_memory_viz.py, whose stats() sums a
snapshot's segments and blocks by state; oomlens's figures for the same pickle
must be those sums, byte for byte. A JAX device memory profile is parsed here by
Debian's python3-protobuf (the descriptor tests/gen/jax_profiles.py builds), and
oomlens's totals must be what protobuf reads, and what Debian's golang-go reads
with `go tool pprof` (pprof itself: the device and kind totals of -tags, each
owner's bytes the cumulative bytes of its line in -top -lines). The records are generated here by
tests/gen (the same code that wrote testdata/records), so a change to a
generator is checked too.
"""
import gzip
import os
import pickle
import re
import shutil
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
    for name in ("fragmented.pickle", "two-devices.pickle", "legacy-history.pickle", "leaking.pickle"):
        committed = load(os.path.join(ROOT, "testdata/records", name))
        assert committed == load(snapshots / name), name


def test_the_older_layout_reads_as_pytorch_reads_it(snapshots):
    path = snapshots / "legacy-history.pickle"
    stats = memory_viz.stats(load(path))  # a list of segments, as PyTorch 1.13 wrote
    report = oomlens.scan([str(path)])
    assert report.incidents == [] and not report  # memory held is no OOM
    (held,) = report.memory_records
    assert held.record and held.kind == "memory_state"
    assert held.facts["reserved_bytes"] == stats["total_size"].value
    assert held.facts["allocated_bytes"] == stats["active_allocated"].value
    assert held.derived["free_total_bytes"] == stats["inactive"].value


@pytest.fixture(scope="module")
def profiles(tmp_path_factory):
    pytest.importorskip("google.protobuf")
    out = tmp_path_factory.mktemp("profiles")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests/gen/jax_profiles.py"), str(out)], check=True)
    return out


def test_a_profiles_totals_are_what_protobuf_reads(profiles):
    sys.path.insert(0, os.path.join(ROOT, "tests/gen"))
    import jax_profiles
    profile = jax_profiles.profile_classes()()
    path = profiles / "sharded-serving.prof"
    profile.ParseFromString(gzip.open(path).read())
    strings = profile.string_table
    kinds = [{strings[l.key]: strings[l.str] for l in s.label}["kind"] for s in profile.sample]
    buffers = sum(s.value[1] for s, k in zip(profile.sample, kinds) if k == "buffer")
    executables = sum(s.value[1] for s, k in zip(profile.sample, kinds) if k == "executable")
    (held,) = oomlens.scan([str(path)]).memory_records
    assert held.facts["live_buffer_bytes"] == buffers
    assert held.facts["live_buffer_count"] == sum(s.value[0] for s, k in zip(profile.sample, kinds) if k == "buffer")
    assert held.facts["executable_bytes"] == executables
    assert held.derived["allocation_count"] == len(profile.sample)
    assert held.derived["top_owner"] == "/srv/app/model.py:31 init_params"


def go_pprof(args, path, home):
    """`go tool pprof` (Debian's golang-go) on a profile, in bytes; its stdout."""
    done = subprocess.run(["go", "tool", "pprof", "-unit=B", "-sample_index=space", *args, str(path)],
                          capture_output=True, text=True, env=dict(os.environ, HOME=str(home)), timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", ["sharded-serving.prof", "sharded-serving-later.prof"])
def test_a_profiles_figures_are_what_go_tool_pprof_reads(name, tmp_path):
    if shutil.which("go") is None:
        pytest.skip("golang-go is not installed (./build.sh test installs it)")
    path = os.path.join(ROOT, "testdata/records", name)
    tags = go_pprof(["-tags"], path, tmp_path)
    by_label = {}  # (key, value) -> bytes, from lines "  10737418240.0B (32.26%): TPU_3(...)" under " key: Total ..."
    key = None
    for line in tags.splitlines():
        head = re.match(r"^\s*(\w+): Total ", line)
        row = re.match(r"^\s*([\d.]+)B \(\s*[\d.]+%\): (.+)$", line)
        if head:
            key = head.group(1)
        elif row and key:
            by_label[(key, row.group(2))] = int(float(row.group(1)))
    devices = [bytes for (k, _), bytes in by_label.items() if k == "device"]
    (record,) = oomlens.scan([path]).json["memory_records"]
    facts = record["facts"]
    assert facts["live_buffer_bytes"] == by_label[("kind", "buffer")]
    assert facts["executable_bytes"] == by_label[("kind", "executable")]
    assert facts["largest_device_bytes"] == max(devices) and facts["smallest_device_bytes"] == min(devices)
    assert facts["device_count"] == len(devices)
    # Each owner (the innermost frame of the program's own code) holds pprof's cumulative
    # bytes of that line: "      0     0%  99.73% 17179869184B 46.93%  init_params /srv/app/model.py:31".
    top = go_pprof(["-top", "-lines", "-nodecount=1000", "-nodefraction=0"], path, tmp_path)
    cum = {}
    for line in top.splitlines():
        row = re.match(r"^\s*\S+\s+\S+\s+\S+\s+(\d+)B?\s+\S+\s+(\S+) (\S+)$", line)
        if row:
            cum[f"{row.group(3)} {row.group(2)}"] = int(row.group(1))
    owners = [g for g in record["allocation_groups"] if g["by"] == "owner"]
    assert owners
    for group in owners:
        assert group["bytes"] == cum[group["key"]], (group, cum)


@pytest.mark.parametrize("name", ["sharded-serving.prof", "sharded-serving-later.prof"])
def test_the_committed_profile_is_the_generators(profiles, name):
    committed = gzip.open(os.path.join(ROOT, "testdata/records", name)).read()
    assert committed == gzip.open(profiles / name).read()


def test_allocations_made_in_the_trace_and_never_freed_are_the_ones_the_program_kept(snapshots):
    sys.path.insert(0, os.path.join(ROOT, "tests/gen"))
    import torch_snapshots
    kept = [b for seg in torch_snapshots.leaking()["segments"] for b in seg["blocks"]
            if b["frames"] is torch_snapshots.KEPT]
    (incident,) = oomlens.scan([str(snapshots / "leaking.pickle")]).incidents
    assert incident.cause == "leak"
    assert incident.facts["never_freed_count"] == len(kept) == 40
    assert incident.facts["never_freed_bytes"] == sum(b["size"] for b in kept)
    assert incident.facts["never_freed_owner"] == "/home/ml/proj/train.py:57 step"
    assert incident.facts["trace_frees"] == 40, "the activations, freed every step"


def test_a_joined_snapshot_is_one_incident_in_python(snapshots):
    log = os.path.join(ROOT, "testdata/records/fragmented-train.log")
    report = oomlens.scan([log, str(snapshots / "fragmented.pickle")])
    (incident,) = report.incidents
    assert incident.cause == "fragmentation"
    assert [str(r) for r in incident.records] == [str(snapshots / "fragmented.pickle")]
    assert [i.record for i in report.inputs] == ["", "memory snapshot"]


def test_a_snapshot_written_opcode_by_opcode_is_what_pickle_and_oomlens_read(tmp_path):
    """The benchmark's big snapshots (tests/gen/torch_snapshots.py --stream) are written
    without holding them: here one of 1 MiB is read by Python's pickle and by PyTorch's
    _memory_viz, and oomlens's streamed read of it gives their figures."""
    path = tmp_path / "stream.pickle"
    subprocess.run([sys.executable, os.path.join(ROOT, "tests/gen/torch_snapshots.py"), "--stream", "30", str(path)],
                   check=True)
    snapshot = load(path)
    blocks = [b for s in snapshot["segments"] for b in s["blocks"]]
    live = [b for b in blocks if b["state"] == "active_allocated"]
    trace = snapshot["device_traces"][0]
    assert trace[-1]["action"] == "oom" and trace[0]["frames"] is live[-100_000]["frames"], \
        "a trace entry fetches its block's frames list, as PyTorch's pickles share it"
    stats = memory_viz.stats(snapshot["segments"])
    incident, = oomlens.scan([str(path)]).incidents
    assert incident.facts["reserved_bytes"] == stats["total_size"].value
    assert incident.facts["allocated_bytes"] == stats["active_allocated"].value
    assert incident.derived["allocation_count"] == len(blocks)
    assert len(incident.allocations) == 10_000, "the largest kept, the rest summarised"
    assert incident.facts["trace_allocs"] == sum(1 for e in trace if e["action"] == "alloc")
