"""Writes a log of TPU OOMs, each followed by an allocation dump (the libtpu flag
tpu_log_allocations_on_oom's key=value layout), for the benchmarks: never committed.

Usage: python3 tests/gen/dump_log.py OUT [--ooms N] [--entries M]   (defaults: 1 OOM, 100,000 entries)
OOM o asks (o + 1) * 1000 MiB; its dump lists M allocated 1 MiB buffers of 50 programs.
"""
import argparse

OOM = ("E1130 10:00:%02d.000100 4242 pjrt_client.cc:410] RESOURCE_EXHAUSTED: Error allocating device buffer: "
       "Attempting to allocate %d.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)\n")
HEADER = "E1130 10:00:%02d.000200 4242 tpu_allocator.cc:901] Live allocations at OOM: %d blocks\n"
ENTRY = ("E1130 10:00:%02d.000300 4242 tpu_allocator.cc:905]   offset=0x%09x size=1.00M state=allocated "
         "owner=jit_step_%d shape=f32[512,%d] label=buf%d id=%d\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--ooms", type=int, default=1)
    parser.add_argument("--entries", type=int, default=100_000)
    args = parser.parse_args()
    with open(args.out, "w") as f:
        for o in range(args.ooms):
            f.write(OOM % (o % 60, 1000 * (o + 1)))
            f.write(HEADER % (o % 60, args.entries))
            for k in range(args.entries):
                f.write(ENTRY % (o % 60, k << 20, k % 50, k % 977 + 1, k % 13, k))


if __name__ == "__main__":
    main()
