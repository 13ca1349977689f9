#!/usr/bin/python3
"""Writes the synthetic PyTorch memory-summary and memory-stats logs of
testdata/logs/gpu/ with PyTorch's own formatter: torch.cuda.memory_summary() of
Debian's python3-torch, given the memory_stats() dict a GPU would return (this
machine has none), so the table is byte for byte what PyTorch prints; the dict
itself is printed as torch.cuda.memory_stats() returns it (an OrderedDict of
sorted keys) by print() and by pprint. Each log is the shape seen in bug reports:
a handler prints in `except torch.cuda.OutOfMemoryError` and re-raises (the
traceback comes after), or the error is printed and then the statistics.

    /usr/bin/python3 tests/gen/memory_summaries.py testdata/logs/gpu
"""
import collections
import os
import pprint
import sys

import torch.cuda.memory as memory

MiB = 1 << 20
GiB = 1 << 30

OOM_1_13 = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total "
            "capacity; 1.04 GiB already allocated; 1.12 GiB free; 12.13 GiB reserved in total by PyTorch) If reserved "
            "memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation "
            "for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
OOM_FULL = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB (GPU 0; 39.39 GiB total "
            "capacity; 37.62 GiB already allocated; 180.00 MiB free; 38.10 GiB reserved in total by PyTorch) If "
            "reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See "
            "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF")
TRACEBACK = ['Traceback (most recent call last):',
             '  File "/home/ml/proj/train.py", line 88, in <module>',
             '    loss = model(batch).sum()',
             '  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1190, in _call_impl',
             '    return forward_call(*input, **kwargs)',
             '  File "/home/ml/proj/model.py", line 41, in forward',
             '    h = self.attn(x)']


def stats(allocated, peak, reserved, inactive_split, ooms, retries):
    """A memory_stats() dict (PyTorch 1.13's keys) with these current figures."""
    out = {"num_ooms": ooms, "num_alloc_retries": retries}
    figures = {"allocated_bytes": (allocated, peak), "active_bytes": (allocated, peak),
               "reserved_bytes": (reserved, reserved), "inactive_split_bytes": (inactive_split, inactive_split),
               "allocation": (1200, 1500), "active": (1200, 1500), "segment": (40, 40), "inactive_split": (300, 310)}
    for key, (current, top) in figures.items():
        for pool, share in (("all", 1.0), ("large_pool", 0.9), ("small_pool", 0.1)):
            for field, value in (("current", current), ("peak", top), ("allocated", 3 * top),
                                 ("freed", 3 * top - current)):
                out[f"{key}.{pool}.{field}"] = int(value * share)
    for key in ("oversize_allocations", "oversize_segments"):
        for field in ("current", "peak", "allocated", "freed"):
            out[f"{key}.{field}"] = 0
    return out


# Split blocks hold 11 GiB the allocator cannot release: fragmentation, with retries.
FRAGMENTED = stats(1062 * MiB + 12345, 4877 * MiB, 12420 * MiB, 11357 * MiB, ooms=1, retries=2)
# The tensors fill the card; the cache holds little.
FULL = stats(int(37.62 * GiB), int(38.0 * GiB), int(38.10 * GiB), 300 * MiB, ooms=3, retries=0)


def summary(figures):
    memory.memory_stats = lambda device=None: figures
    memory._get_device_index = lambda device, optional=False: 0
    return memory.memory_summary(device=0).rstrip("\n").split("\n")


def logs():
    """{file name: (text, the stats dict its table prints)}."""
    handler = summary(FRAGMENTED) + TRACEBACK + [OOM_1_13]
    after = ["epoch 3 step 1200 loss 2.113", OOM_FULL.replace("torch.cuda.OutOfMemoryError: ", "OOM at step 1201: "),
             *summary(FULL)]
    as_returned = lambda figures: collections.OrderedDict(sorted(figures.items()))  # as memory_stats() does
    pprinted = pprint.pformat(as_returned(FRAGMENTED)).split("\n") + TRACEBACK + [OOM_1_13]
    printed = [OOM_FULL, repr(as_returned(FULL))]
    return {"pytorch_memory_summary_handler_synthetic.log": ("\n".join(handler) + "\n", FRAGMENTED),
            "pytorch_memory_summary_after_synthetic.log": ("\n".join(after) + "\n", FULL),
            "pytorch_memory_stats_pprint_synthetic.log": ("\n".join(pprinted) + "\n", FRAGMENTED),
            "pytorch_memory_stats_print_synthetic.log": ("\n".join(printed) + "\n", FULL)}


def main(out_dir):
    for name, (text, _) in logs().items():
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/logs/gpu")
