#!/usr/bin/env python3
"""Writes a synthetic fleet: N small job logs built from templates of real
message families, with known OOMs injected and known repeats, and a manifest of
what oomlens should find: OUT_DIR/logs/job-NNNNNN.log[.gz] and OUT_DIR/manifest.json.

Each job is one training run: start-up lines and step metrics (glog or ISO
timestamps over ten days), then, for most jobs, one or two failures:

  tpu_load      E0101 program load, printed by 1-8 partitions (repeats), programs
                jit_train_step / jit_eval_step, 20-40G asked with 50-500M free
  tpu_buffer    E0100 device buffer, 256M-1G asked with 10-100M free
  tpu_compile   compile-time HBM over capacity (Used X of 15.48G)
  cuda          PyTorch CUDA OOM, 0.5-4 GiB asked with 0.1-0.4 GiB free (the rest in use)
  host_kill     kernel OOM killer
  none          a clean run

One file in ten is gzip. Deterministic for a seed.

Usage: tests/gen/fleet.py OUT_DIR --jobs 5000 [--seed 1]
"""
import argparse
import gzip
import json
import os
import random

PROGRAMS = ["jit_train_step", "jit_eval_step"]


def glog_stamp(day, second):
    return f"11{day:02d} {10 + second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}.000000"


def iso_stamp(day, second):
    return f"2026-11-{day:02d} {10 + second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d},000"


def steps(rng, day, glog, count):
    lines = []
    for step in range(count):
        second = step * 7
        loss = 3.0 - step * 0.01 + rng.random() * 0.1
        if glog:
            lines.append(f"I{glog_stamp(day, second)}  {rng.randint(100, 999)} train.py:88] step {step} loss {loss:.3f}")
        else:
            lines.append(f"{iso_stamp(day, second)} INFO train step {step} loss {loss:.3f}")
    return lines


def tpu_load(rng, day, program):
    asked, free = rng.uniform(20, 40), rng.randint(50, 500)
    partitions = rng.randint(1, 8)
    lines = []
    for p in range(partitions):
        lines.append(f"E{glog_stamp(day, 3600 + p)}  77 pjrt_client.cc:1200] XlaRuntimeError: RESOURCE_EXHAUSTED: "
                     f"Error loading program '{program}': Attempting to reserve {asked:.2f}G at the bottom of memory. "
                     f"That was not possible. There are {free}.00M free, 0B reserved, and {free}.00M reservable.: "
                     f"while running replica 0 and partition {p} of a replicated computation (other replicas may "
                     "have failed as well).")
    return lines


def tpu_buffer(rng, day):
    return [f"E{glog_stamp(day, 3000)}  77 tpu_client.cc:412] RESOURCE_EXHAUSTED: Error allocating device buffer: "
            f"Attempting to allocate {rng.randint(256, 1024)}.00M. That was not possible. There are "
            f"{rng.randint(10, 100)}.00M free.; (0x0x0_HBM0)"]


def tpu_compile(rng, day):
    used = rng.uniform(16.5, 20)
    return [f"2026-11-{day:02d} 11:00:00.000000: E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:2432] "
            f"Execution of replica 0 failed: RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. Used "
            f"{used:.2f}G of 15.48G hbm. Exceeded hbm capacity by {used - 15.48:.2f}G."]


def cuda(rng, day):
    return [f"torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate {rng.uniform(0.5, 4):.2f} GiB. GPU 0 "
            f"has a total capacity of 79.15 GiB of which {rng.uniform(0.1, 0.4):.2f} GiB is free. Process "
            f"{rng.randint(1000, 99999)} has 77.94 GiB memory in use. Of the allocated memory 70.00 GiB is allocated "
            "by PyTorch, and 2.00 GiB is reserved by PyTorch but unallocated."]


def host_kill(rng, day):
    return [f"[Mon Nov {day} 10:00:01 2026] Out of memory: Killed process {rng.randint(1000, 99999)} (python3) "
            f"total-vm:{rng.randint(40, 60) * 1000000}kB, anon-rss:{rng.randint(10, 14) * 1000000}kB, "
            "file-rss:68668kB, shmem-rss:53352kB, UID:1000 pgtables:26004kB oom_score_adj:0"]


# template -> (kind oomlens reports, messages per failure are counted from the lines)
KINDS = {"tpu_load": "tpu_program_load", "tpu_buffer": "tpu_buffer_alloc", "tpu_compile": "tpu_compile_hbm",
         "cuda": "pytorch_cuda", "host_kill": "host_oom_killer"}


def job(rng, index):
    """The lines of one job's log and the failures injected: [(template, program, messages)]."""
    day = 21 + index % 10
    choice = rng.choices(["tpu_load", "tpu_buffer", "tpu_compile", "cuda", "host_kill", "none", "two"],
                         weights=[30, 10, 10, 15, 5, 25, 5])[0]
    glog = choice not in ("cuda", "host_kill", "tpu_compile")
    lines = steps(rng, day, glog, rng.randint(5, 40))
    injected = []
    templates = ["tpu_buffer", "tpu_load"] if choice == "two" else [] if choice == "none" else [choice]
    for template in templates:
        program = rng.choice(PROGRAMS) if template == "tpu_load" else ""
        body = tpu_load(rng, day, program) if template == "tpu_load" else globals()[template](rng, day)
        lines.extend(body)
        injected.append((template, program, len(body)))
    return lines, injected


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    logs = os.path.join(args.out, "logs")
    os.makedirs(logs, exist_ok=True)
    expected, with_oom = {}, 0
    for index in range(args.jobs):
        lines, injected = job(rng, index)
        text = ("\n".join(lines) + "\n").encode()
        name = os.path.join(logs, f"job-{index:06d}.log" + (".gz" if index % 10 == 9 else ""))
        with open(name, "wb") as out:
            out.write(gzip.compress(text, mtime=0) if name.endswith(".gz") else text)
        with_oom += bool(injected)
        for template, program, messages in injected:
            e = expected.setdefault(f"{template}:{program}", {"kind": KINDS[template], "program": program,
                                                              "jobs": 0, "occurrences": 0})
            e["jobs"] += 1
            e["occurrences"] += messages
    manifest = {"jobs": args.jobs, "jobs_with_oom": with_oom, "seed": args.seed,
                "failures": sorted(expected.values(), key=lambda e: (-e["jobs"], e["kind"], e["program"]))}
    with open(os.path.join(args.out, "manifest.json"), "w") as out:
        json.dump(manifest, out, indent=1)


if __name__ == "__main__":
    main()
