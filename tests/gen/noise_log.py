#!/usr/bin/env python3
"""Generates a realistic training log for benchmarks (never committed).

Usage: tests/gen/noise_log.py SIZE_MIB [--storm | --quiet] [--seed N] > out.log

Noise: glog and Python logging lines, step metrics, progress bars with '\\r',
healthy memory statistics, quota RESOURCE_EXHAUSTED warnings (not OOMs).
--quiet leaves out the memory statistics and the quota warnings: no line holds
a signature's literal, so the scan is the fast path alone.
--storm mixes in a 256-replica E0101 storm, a 20-entry compile report and a
5,000-line BFC dump. Deterministic for a given seed and size.
"""
import random
import sys

def noise_block(rng, n, quiet=False):
    out = []
    for i in range(n):
        r = rng.random() * (0.75 if quiet else 1)
        if r < 0.35:
            out.append(f"I1130 12:{i % 60:02d}:{(i * 7) % 60:02d}.{(i * 7919) % 1000000:06d}  {1000 + i % 64} train.py:{i % 400}] step {i} loss={rng.random():.4f} tokens/s/device={4700 + i % 200} mfu=0.4{i % 10}")
        elif r < 0.6:
            out.append(f"2026-11-30 12:00:{i % 60:02d},{i % 1000:03d} - trainer - INFO - epoch {i // 1000} batch {i % 1000} accuracy {rng.random():.3f} grad_norm {rng.random() * 3:.3f}")
        elif r < 0.75:
            out.append(f"step {i}:  40%|####      | 200/500 [00:05<00:07, 40.1it/s]\rstep {i}: 100%|##########| 500/500 [00:12<00:00, 40.1it/s]")
        elif r < 0.9:
            out.append(f"Memstats: step {i}: Using (GB) {3 + (i % 7) / 10:.2f} / 30.75 ({10 + i % 5}.0%) on TPU_{i % 8}(process=0,({i % 2},0,0,0))")
        else:
            out.append(f"W1130 12:00:00.000000  77 gcs_client.cc:91] RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute'; retrying in {i % 7}s")
    return "\n".join(out) + "\n"

def storm(rng):
    lines = []
    for p in range(256):
        lines.append(f"[worker-{p // 8}] E1130 12:00:01.{p:06d}  4242 tpu_client.cc:512] XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable.: while running replica 0 and partition {p} of a replicated computation (other replicas may have failed as well).")
    lines.append("Compilation failure: Ran out of memory in memory space hbm. Used 17.60G of 16.00G hbm. Exceeded hbm capacity by 1.60G.")
    lines.append("  Largest program allocations in hbm:")
    for k in range(1, 21):
        lines += [f"  {k}. Size: {512 // k}.00M", '     Operator: op_type="MaxPool" op_name="resnet/pool"',
                  "     Shape: f32[4,256,256,256]{3,0,2,1:T(4,128)}", "     Unpadded size: 256.00M",
                  "     Allocation type: HLO temp", "     =========================="]
    lines.append("W bfc_allocator.cc:273] Allocator (GPU_0_bfc) ran out of memory trying to allocate 74.16MiB.  Current allocation summary follows.")
    for k in range(5000):
        state = "Free " if k % 50 == 0 else "InUse"
        lines.append(f"I bfc_allocator.cc:990] {state} at 7bc2af{k:06x} of size {256 * (1 + k % 9)} next {k + 1}")
    lines.append("I bfc_allocator.cc:1002] Sum Total of in-use chunks: 874.79MiB")
    return "\n".join(lines) + "\n"

def main():
    args = sys.argv[1:]
    size = int(args[0]) << 20
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
    rng = random.Random(seed)
    block = noise_block(rng, 20000, quiet="--quiet" in args)
    out = sys.stdout
    written, storm_at = 0, size // 2 if "--storm" in args else -1
    while written < size:
        chunk = block if written + len(block) <= size else block[: size - written]
        out.write(chunk)
        written += len(chunk)
        if 0 <= storm_at <= written:
            text = storm(rng)
            out.write(text)
            written += len(text)
            storm_at = -1

if __name__ == "__main__":
    main()
