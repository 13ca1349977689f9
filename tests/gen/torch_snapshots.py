#!/usr/bin/python3
"""Writes the synthetic PyTorch memory snapshots of testdata/records/.

Each is the dict torch.cuda.memory._snapshot() returns, in the layout documented in
PyTorch's torch/cuda/memory.py (_snapshot's docstring: segments, blocks, frames,
device_traces, allocator_settings), pickled by Python's own pickle module as
_dump_snapshot() does; legacy-history.pickle is the older layout (a list of
segments whose blocks keep a history, as PyTorch 1.13 wrote and Debian's
python3-torch still reads). Frames are one list per call site, shared by every
block allocated there, so the pickles share them by memo as real snapshots do.

    /usr/bin/python3 tests/gen/torch_snapshots.py testdata/records
    /usr/bin/python3 tests/gen/torch_snapshots.py --busy BLOCKS TRACE_ENTRIES OUT
    /usr/bin/python3 tests/gen/torch_snapshots.py --stream MIB OUT

--stream writes a snapshot of about MIB MiB without holding it (a busy GPU's: many
segments, a long trace), opcode by opcode as CPython's pickler writes protocol 4:
every container and string memoized, a string seen before fetched from the memo;
each block's frames list its own, of frames shared by all, and fetched again by
the trace entries of the same allocation, as PyTorch's snapshots are.
"""
import gzip
import os
import pickle
import struct
import sys

MiB = 1 << 20
GiB = 1 << 30


def frames(*sites):
    """Frames innermost first, as a snapshot keeps them: C++, PyTorch, then the program."""
    out = [{"filename": "/pytorch/c10/cuda/CUDACachingAllocator.cpp", "line": 1124, "name": "malloc"},
           {"filename": "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py", "line": 116,
            "name": "forward"}]
    for filename, line, name in sites:
        out.append({"filename": filename, "line": line, "name": name})
    return out


ATTENTION = frames(("/home/ml/proj/model.py", 88, "attention"), ("/home/ml/proj/train.py", 42, "step"))
MLP = frames(("/home/ml/proj/model.py", 131, "mlp"), ("/home/ml/proj/train.py", 42, "step"))
OPTIMIZER = frames(("/home/ml/.local/lib/python3.11/site-packages/transformers/optimization.py", 640,
                    "step"), ("/home/ml/proj/train.py", 47, "step"))


def block(address, size, state, site=None):
    b = {"address": address, "size": size, "requested_size": size if state != "inactive" else 0,
         "state": state, "frames": site if site is not None and state != "inactive" else []}
    return b


def segment(device, address, parts, pool=(0, 0), expandable=False, stream=0):
    """A segment of consecutive blocks: parts are (size, state, frames)."""
    blocks, at = [], address
    for size, state, site in parts:
        blocks.append(block(at, size, state, site))
        at += size
    total = at - address
    allocated = sum(b["size"] for b in blocks if b["state"] == "active_allocated")
    active = sum(b["size"] for b in blocks if b["state"] != "inactive")
    return {"device": device, "address": address, "total_size": total, "stream": stream,
            "segment_type": "large", "segment_pool_id": pool, "allocated_size": allocated,
            "active_size": active, "is_expandable": expandable, "blocks": blocks}


def oom(size, device_free, site):
    return {"action": "oom", "addr": 0, "size": size, "stream": 0, "device_free": device_free,
            "frames": site}


def settings(conf="", expandable=False):
    return {"PYTORCH_CUDA_ALLOC_CONF": conf, "max_split_size": -1, "expandable_segments": expandable,
            "garbage_collection_threshold": 0.0, "roundup_power2_divisions": [1] * 64}


def fragmented():
    """Six 512 MiB segments, each split around a 60 MiB hole: 360 MiB cached free and
    90 MiB free on the device, but no piece of the 200 MiB asked for."""
    segs = []
    for k in range(6):
        site = ATTENTION if k % 2 == 0 else MLP
        segs.append(segment(0, 0x7F0000000000 + k * GiB,
                            [(400 * MiB, "active_allocated", site), (60 * MiB, "inactive", None),
                             (52 * MiB, "active_allocated", ATTENTION)]))
    trace = [{"action": "alloc", "addr": segs[0]["address"], "size": 400 * MiB, "stream": 0,
              "frames": ATTENTION},
             oom(200 * MiB, 90 * MiB, ATTENTION)]
    return {"segments": segs, "device_traces": [trace], "allocator_settings": settings()}


def expandable_aggregate():
    """Expandable segments on, a CUDA-graph pool, and a request larger than all that
    is free: the tensors fill the device, not the cache."""
    segs = [segment(0, 0x7E0000000000, [(30 * GiB, "active_allocated", OPTIMIZER),
                                        (9 * GiB, "active_allocated", MLP),
                                        (256 * MiB, "inactive", None)], expandable=True),
            segment(0, 0x7D0000000000, [(2 * GiB, "active_allocated", ATTENTION)], pool=(1, 3),
                    expandable=True)]
    trace = [oom(4 * GiB, 310 * MiB, MLP)]
    return {"segments": segs, "device_traces": [trace],
            "allocator_settings": settings("expandable_segments:True", True)}


def two_devices():
    """Device 0 healthy, device 1 ran out; blocks freed on another stream still held."""
    segs = [segment(0, 0x7C0000000000, [(1 * GiB, "active_allocated", MLP)]),
            segment(1, 0x7B0000000000, [(6 * GiB, "active_allocated", ATTENTION),
                                        (1 * GiB, "active_awaiting_free", MLP),
                                        (20 * MiB, "inactive", None)], stream=7)]
    return {"segments": segs, "device_traces": [[], [oom(3 * GiB, 700 * MiB, ATTENTION)]],
            "allocator_settings": settings()}


KEPT = frames(("/home/ml/proj/train.py", 57, "step"))
ACTIVATION = frames(("/home/ml/proj/model.py", 140, "forward"), ("/home/ml/proj/train.py", 52, "step"))


def leaking():
    """Forty steps, each freeing its activations but keeping a 64 MiB output (a list
    of outputs that is never cleared): the trace shows 40 allocations at train.py:57
    made and never freed, beside 40 freed; then a 512 MiB request fails."""
    weights = segment(0, 0x790000000000, [(4 * GiB, "active_allocated", MLP)])
    kept = segment(0, 0x780000000000, [(64 * MiB, "active_allocated", KEPT)] * 40)
    scratch = segment(0, 0x770000000000, [(256 * MiB, "inactive", None)])
    trace = []
    for step in range(40):
        trace.append({"action": "alloc", "addr": scratch["address"], "size": 256 * MiB, "stream": 0,
                      "frames": ACTIVATION})
        trace.append({"action": "alloc", "addr": kept["address"] + step * 64 * MiB, "size": 64 * MiB, "stream": 0,
                      "frames": KEPT})
        for action in ("free_requested", "free_completed"):
            trace.append({"action": action, "addr": scratch["address"], "size": 256 * MiB, "stream": 0,
                          "frames": ACTIVATION})
    trace.append(oom(512 * MiB, 100 * MiB, ACTIVATION))
    return {"segments": [weights, kept, scratch], "device_traces": [trace], "allocator_settings": settings()}


def legacy_history():
    """The older layout: a list of segments; each block's history lists its reuses."""
    segs = []
    for k in range(2):
        seg = segment(0, 0x7A0000000000 + k * GiB,
                      [(300 * MiB, "active_allocated", None), (212 * MiB, "inactive", None)])
        for b in seg["blocks"]:
            del b["frames"]
            if b["state"] == "active_allocated":
                b["history"] = [{"addr": b["address"], "real_size": b["size"], "frames": MLP}]
        segs.append(seg)
    return segs


def busy(blocks, trace_entries):
    """A busy GPU's snapshot for the memory benchmark (tests/bench/memory.sh): segments
    of 500 blocks of 2 MiB (one in five free), 50 call sites, and a trace of that
    many allocations, each of a live block, most freed, then an OOM."""
    sites = [frames(("/home/ml/proj/model.py", 10 + k, "layer%d" % k), ("/home/ml/proj/train.py", 42, "step"))
             for k in range(50)]
    segs, live = [], []
    for s in range(max(1, blocks // 500)):
        parts = [(2 * MiB, "inactive" if b % 5 == 0 else "active_allocated", sites[(s + b) % 50]) for b in range(500)]
        seg = segment(0, 0x7F0000000000 + s * GiB, parts)
        segs.append(seg)
        live.extend(b for b in seg["blocks"] if b["state"] == "active_allocated")
    trace = []
    for k in range(trace_entries):
        b = live[k % len(live)]
        trace.append({"action": "alloc", "addr": b["address"], "size": b["size"], "stream": 0, "frames": b["frames"]})
        if k % 4:
            trace.append({"action": "free_completed", "addr": b["address"], "size": b["size"], "stream": 0,
                          "frames": b["frames"]})
    trace.append(oom(64 * MiB, 10 * MiB, sites[0]))
    return {"segments": segs, "device_traces": [trace], "allocator_settings": settings()}


class Emitter:
    """Protocol 4 opcodes, as CPython's pickler writes them for plain data."""

    def __init__(self, out):
        self.out, self.memo, self.strings = out, 0, {}

    def memoize(self):
        self.out.write(b"\x94")
        self.memo += 1
        return self.memo - 1

    def get(self, index):
        self.out.write(b"h" + bytes([index]) if index < 256 else b"j" + struct.pack("<I", index))

    def string(self, text):
        if text in self.strings:
            return self.get(self.strings[text])
        data = text.encode()
        self.out.write((b"\x8c" + bytes([len(data)]) if len(data) < 256 else b"X" + struct.pack("<I", len(data))) + data)
        self.strings[text] = self.memoize()

    def integer(self, v):
        if 0 <= v < 256:
            self.out.write(b"K" + bytes([v]))
        elif -(1 << 31) <= v < 1 << 31:
            self.out.write(b"J" + struct.pack("<i", v))
        else:
            self.out.write(b"\x8a\x08" + struct.pack("<q", v))

    def value(self, v):
        if isinstance(v, bool):
            self.out.write(b"\x88" if v else b"\x89")
        elif isinstance(v, int):
            self.integer(v)
        elif isinstance(v, str):
            self.string(v)
        elif isinstance(v, dict):
            self.dict(v.items())
        elif callable(v):
            v(self)  # something written by hand (a list streamed, a memo fetch)
        else:
            raise TypeError(v)

    def batches(self, items, each, single, batch):
        buffered = []
        for item in items:
            buffered.append(item)
            if len(buffered) == 1000:
                self.out.write(b"(")
                for b in buffered:
                    each(b)
                self.out.write(batch)
                buffered = []
        if len(buffered) == 1:
            each(buffered[0])
            self.out.write(single)
        elif buffered:
            self.out.write(b"(")
            for b in buffered:
                each(b)
            self.out.write(batch)

    def dict(self, pairs):
        self.out.write(b"}")
        index = self.memoize()
        self.batches(pairs, lambda kv: (self.value(kv[0]), self.value(kv[1])), b"s", b"u")
        return index

    def list(self, items):
        self.out.write(b"]")
        index = self.memoize()
        self.batches(items, self.value, b"a", b"e")
        return index


def stream(mib, path):
    """A snapshot of about mib MiB (see the module's docstring): segments of 500
    blocks of 2 MiB (one in five free), then a trace of allocations and frees of
    the last 100,000 live blocks, then an OOM."""
    import collections
    with open(path, "wb") as f:
        e = Emitter(f)
        f.write(b"\x80\x04")
        site_frames = {}  # (site, k) -> the frame dict's memo index
        recent = collections.deque(maxlen=100_000)  # (address, frames list's memo index) of live blocks

        def frame(site, k):
            def write(em):
                if (site, k) in site_frames:
                    return em.get(site_frames[(site, k)])
                file, line, name = [("/pytorch/c10/cuda/CUDACachingAllocator.cpp", 1124, "malloc"),
                                    ("/home/ml/proj/model.py", 10 + site, "layer%d" % site),
                                    ("/home/ml/proj/train.py", 42, "step")][k]
                site_frames[(site, k)] = em.dict([("filename", file), ("line", line), ("name", name)])
            return write

        def block(address, site, free):
            def write(em):
                pairs = [("address", address), ("size", 2 * MiB), ("requested_size", 0 if free else 2 * MiB),
                         ("state", "inactive" if free else "active_allocated")]
                holder = {}
                pairs.append(("frames", lambda em2: holder.setdefault(
                    "index", em2.list([] if free else [frame(site, k) for k in range(3)]))))
                em.dict(pairs)
                if not free:
                    recent.append((address, holder["index"]))
            return write

        def segments(em):
            def each_segment():
                s = 0
                while f.tell() < mib * MiB * 0.6:
                    base = 0x7F0000000000 + s * GiB
                    blocks = [block(base + b * 2 * MiB, (s + b) % 50, b % 5 == 0) for b in range(500)]
                    yield lambda em2, base=base, blocks=blocks: em2.dict(
                        [("device", 0), ("address", base), ("total_size", 500 * 2 * MiB), ("stream", 0),
                         ("segment_type", "large"), ("segment_pool_id", lambda em3: em3.out.write(b"K\x00K\x00\x86")),
                         ("allocated_size", 400 * 2 * MiB), ("active_size", 400 * 2 * MiB), ("is_expandable", False),
                         ("blocks", lambda em3: em3.list(blocks))])
                    s += 1
            em.list(each_segment())

        def trace(em):
            def entries():
                k = 0
                while f.tell() < mib * MiB:
                    address, frames = recent[k % len(recent)]
                    for action in ("alloc", "free_requested", "free_completed") if k % 4 else ("alloc",):
                        yield lambda em2, action=action, address=address, frames=frames: em2.dict(
                            [("action", action), ("addr", address), ("size", 2 * MiB), ("stream", 0),
                             ("time_us", 1_700_000_000_000 + k), ("frames", lambda em3: em3.get(frames))])
                    k += 1
                yield lambda em2: em2.dict([("action", "oom"), ("addr", 0), ("size", 64 * MiB), ("stream", 0),
                                            ("device_free", 10 * MiB), ("frames", lambda em3: em3.list([]))])
            em.list([lambda em2: em2.list(entries())])

        e.dict([("segments", segments), ("device_traces", trace),
                ("allocator_settings", {"expandable_segments": False, "max_split_size": -1})])
        f.write(b".")


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    write = lambda name, value, protocol: open(os.path.join(out_dir, name), "wb").write(
        pickle.dumps(value, protocol=protocol))
    write("fragmented.pickle", fragmented(), 4)
    with gzip.GzipFile(os.path.join(out_dir, "expandable-aggregate.pickle.gz"), "wb", mtime=0) as f:
        f.write(pickle.dumps(expandable_aggregate(), protocol=5))
    write("two-devices.pickle", two_devices(), 2)
    write("leaking.pickle", leaking(), 4)
    write("legacy-history.pickle", legacy_history(), 2)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--stream":  # --stream MIB OUT
        stream(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "--busy":  # --busy BLOCKS TRACE_ENTRIES OUT
        with open(sys.argv[4], "wb") as f:
            f.write(pickle.dumps(busy(int(sys.argv[2]), int(sys.argv[3])), protocol=4))
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "testdata/records")
