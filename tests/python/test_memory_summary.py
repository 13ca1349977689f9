"""torch.cuda.memory_summary() tables and memory_stats() dicts read against the
figures PyTorch formatted.

The logs in testdata/logs/gpu/pytorch_memory_{summary,stats}_* are written by
tests/gen/memory_summaries.py with Debian's PyTorch formatting a memory_stats()
dict (or the dict printed as memory_stats() returns it); oomlens must read back,
from the log alone, the figures of that dict (a table's each floored to its unit,
binary whatever the label says; a dict's exact)."""
import importlib.util
import os

import pytest

from conftest import ROOT
import oomlens

pytest.importorskip("torch")
spec = importlib.util.spec_from_file_location("memory_summaries", os.path.join(ROOT, "tests/gen/memory_summaries.py"))
memory_summaries = importlib.util.module_from_spec(spec)
spec.loader.exec_module(memory_summaries)
LOGS = memory_summaries.logs()


def printed_unit(value):
    """The unit memory_summary floors value to (its _format_size)."""
    unit = 1
    while value / unit >= 768 * 1024:
        unit *= 1024
    return unit


def read_back(read, exact):
    unit = printed_unit(exact)
    return exact // unit * unit <= read < exact // unit * unit + unit


@pytest.mark.parametrize("name", sorted(LOGS))
def test_the_table_reads_back_as_pytorch_formatted_it(name):
    text, stats = LOGS[name]
    (incident,) = oomlens.diagnose(text).incidents
    assert incident.facts["alloc_retries"] == stats["num_alloc_retries"]
    assert read_back(incident.facts["non_releasable_bytes"], stats["inactive_split_bytes.all.current"])
    assert read_back(incident.facts["max_in_use_bytes"], stats["allocated_bytes.all.peak"])


@pytest.mark.parametrize("name", sorted(LOGS))
def test_the_committed_logs_are_the_generators(name):
    with open(os.path.join(ROOT, "testdata/logs/gpu", name)) as f:
        assert f.read() == LOGS[name][0]


def test_split_blocks_the_allocator_cannot_release_are_named_as_fragmentation():
    text, _ = LOGS["pytorch_memory_summary_handler_synthetic.log"]
    (incident,) = oomlens.diagnose(text).incidents
    assert incident.cause == "fragmentation"
    assert any("non-releasable" in e and "allocator's statistics" in e for e in incident.evidence), incident.evidence
    assert any("cudaMalloc retries 2" in e for e in incident.evidence)
