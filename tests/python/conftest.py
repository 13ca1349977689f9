"""Shared helpers: the oomlens binary the Python results are compared with, and
running a script in a fresh interpreter (the hook's tests need a whole process)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("OOMLENS_BIN", os.path.join(ROOT, "build", "oomlens"))

SEED = ("XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': Attempting to "
        "reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and "
        "147.64M reservable.")
# As PyTorch 1.13 (Debian 12's) words a CUDA OOM.
TORCH_OOM = ("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.50 GiB already "
             "allocated; 3.12 MiB free; 14.60 GiB reserved in total by PyTorch) If reserved memory is >> allocated "
             "memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management "
             "and PYTORCH_CUDA_ALLOC_CONF")


def cli(*args, stdin=None):
    """The oomlens binary's (exit code, stdout, stderr)."""
    done = subprocess.run([BIN, *args], capture_output=True, text=True, input=stdin, cwd=ROOT)
    return done.returncode, done.stdout, done.stderr


def run_python(code, *, env=None):
    """Runs code in a fresh interpreter (this one's, with this PYTHONPATH)."""
    full_env = dict(os.environ, **(env or {}))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=full_env,
                          timeout=120)
    return done.returncode, done.stdout, done.stderr


def bundled_logs():
    logs = []
    for base in ("testdata/logs", "testdata/examples"):
        for root, _, files in os.walk(os.path.join(ROOT, base)):
            logs.extend(os.path.join(root, f) for f in files if ".log" in f)
    return sorted(logs)


@pytest.fixture
def root():
    return ROOT
