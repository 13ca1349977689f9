#!/usr/bin/env python3
"""Writes testdata/examples/multihost_e0101.log: the E0101 seed message printed by
256 partitions on 32 hosts of a pod slice, interleaved with the noise of a real
multi-host JAX job (startup lines, step metrics, progress bars with '\\r', a quota
RESOURCE_EXHAUSTED warning that is not an OOM). Some messages carry a glog prefix,
some are wrapped by the logger over three lines, one partition prints a different
free size (an outlier). Deterministic: same output on every run.

Usage: tests/gen/multihost_e0101.py > testdata/examples/multihost_e0101.log
"""
import random

rng = random.Random(20261130)
HOSTS, PARTS_PER_HOST = 32, 8
PROGRAM = "jit_embedding_pipeline_step_fn"
out = []  # (sort key, line)


def add(t, host, text):
    out.append((t, host, f"[worker-{host}] {text}"))


def glog(t, level, src, msg):
    s = int(t)
    return f"{level}1130 09:{14 + s // 60:02d}:{s % 60:02d}.{int((t % 1) * 1e6):06d}  {4100 + rng.randint(0, 99)} {src}] {msg}"


def oom(partition, free="147.64M"):
    return (f"XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program '{PROGRAM}': Attempting to reserve "
            f"29.49G at the bottom of memory. That was not possible. There are {free} free, 0B reserved, and "
            f"{free} reservable. Scope: unknown..: while running replica 0 and partition {partition} of a "
            f"replicated computation (other replicas may have failed as well).")


for h in range(HOSTS):
    t = rng.uniform(0, 0.5)
    add(t, h, f"2026-11-30 09:14:0{h % 10},{rng.randint(100, 999)} - absl - INFO - Starting training on host {h} of {HOSTS}")
    add(t + 0.1, h, glog(t + 0.1, "I", "tpu_initializer_helper.cc:292", "Using libtpu from LIBTPU_INIT_ARGS=--xla_tpu_enable_latency_hiding_scheduler=true"))
    add(t + 0.2, h, glog(t + 0.2, "I", "tpu_client.cc:128", f"TPU backend initialized: 8 devices on host {h}, TPU v4 pod slice v4-512"))
    add(t + 0.3, h, "2026-11-30 09:14:11,402 - train - INFO - Loaded checkpoint step=41000 from gs://ckpt/llm-8b/step_41000")
    for step in range(41000, 41006):
        t += rng.uniform(2.0, 2.4)
        bar = "".join(f"\rstep {step}: {p:3d}%|{'#' * (p // 10):<10}|" for p in (0, 40, 80, 100))
        add(t, h, bar)
        add(t + 0.01, h, f"2026-11-30 09:14:{20 + step - 41000:02d},{rng.randint(100, 999)} - train - INFO - step={step} loss={2.1 - (step - 41000) * 0.01:.4f} tokens/s/device={4800 + rng.randint(-40, 40)} mfu=0.{rng.randint(40, 45)}")
    if h == 7:
        add(t + 0.05, h, "2026-11-30 09:14:26,007 - google.cloud.storage - WARNING - 429 RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute'; retrying in 2.0s")
    add(t + 0.2, h, glog(t + 0.2, "I", "pjrt_executable.cc:311", f"Compiling {PROGRAM} for 256 devices (eval pipeline)"))
    t_oom = t + 1.0 + rng.uniform(0, 0.3)
    for k in range(PARTS_PER_HOST):
        p = h * PARTS_PER_HOST + k
        msg = oom(p, free="150.02M" if p == 201 else "147.64M")
        tk = t_oom + k * 0.001
        style = (h + k) % 3
        if style == 0:  # glog-prefixed, one line
            add(tk, h, glog(tk, "E", "pjrt_stream_executor_client.cc:2879", "Execution of replica 0 failed: " + msg))
        elif style == 1:  # wrapped by the logger, continuation lines without the glog prefix
            cut1 = msg.index("29.49G")
            cut2 = msg.index("replicated computation")
            add(tk, h, glog(tk, "E", "tpu_program.cc:512", msg[:cut1].rstrip()))
            add(tk + 0.0001, h, msg[cut1:cut2].rstrip())
            add(tk + 0.0002, h, msg[cut2:])
        else:  # Python traceback tail
            add(tk, h, "Traceback (most recent call last):")
            add(tk + 0.0001, h, '  File "/app/train.py", line 311, in eval_step')
            add(tk + 0.0002, h, "    metrics = p_eval_step(state, batch)")
            add(tk + 0.0003, h, "jax.errors.Jax" + msg.replace("XlaRuntimeError", "RuntimeError", 1))
    add(t_oom + 0.5, h, "2026-11-30 09:14:40,118 - train - ERROR - eval failed, exiting with status 1")

out.sort(key=lambda x: (round(x[0], 1), x[1], x[0]))
for _, _, line in out:
    print(line)
