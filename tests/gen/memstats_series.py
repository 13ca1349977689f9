"""Writes the synthetic MaxText-style logs in testdata/logs/series/ (deterministic).

MaxText's print_mem_stats prints 'Memstats: <label>:' then one 'Using (GB) used / limit
(p%) on <device>' line per device (GiB). One log grows 2.1G per step then fails with
E0100; the other stays level then fails with E0101. Usage: python3 tests/gen/memstats_series.py
"""
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "logs", "series")


def glog(seconds, source):
    return "I1130 10:%02d:%02d.000000 7 %s] " % (seconds // 60, seconds % 60, source)


def step(lines, k, used, limit=30.75, devices=4):
    t = 90 * k  # a step every 90 s
    lines.append(glog(t, "max_utils.py:691"))
    lines.append(glog(t, "max_utils.py:691") + "Memstats: After step %d:" % k)
    for d in range(devices):
        lines.append(glog(t, "max_utils.py:697") + "\tUsing (GB) %.2f / %.2f (%f%%) on TPU_%d(process=0,(%d,0,0,0))"
                     % (used, limit, 100 * used / limit, d, d))
    lines.append(glog(t + 1, "train.py:500") + "completed step: %d, seconds: 1.502, TFLOP/s/device: 180.1, loss: %.3f"
                 % (k, 3 - 0.1 * k))


def write(name, lines):
    with open(os.path.join(OUT, name), "w") as f:
        f.write("\n".join(lines) + "\n")


growth = []
for k in range(8):
    step(growth, k, 12.0 + 2.1 * k)
growth.append("E1130 10:12:09.000000 7 pjrt_client.cc:410] jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error "
              "allocating device buffer: Attempting to allocate 2.00G. That was not possible. There are 1.98G free.; "
              "(0x0x0_HBM0)")
write("maxtext_memstats_growth_then_e0100.log", growth)

level = []
for k in range(6):
    step(level, k, 24.31 if k else 24.30)
level.append("E1130 10:09:09.000000 7 pjrt_client.cc:410] jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error "
             "loading program 'jit_eval_step': Attempting to reserve 7.20G at the bottom of memory. That was not "
             "possible. There are 6.44G free, 0B reserved, and 6.44G reservable.")
write("maxtext_memstats_flat_then_e0101.log", level)
