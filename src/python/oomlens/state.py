"""The allocators' own records, saved at an OOM (install(save_state=DIR)).

At the exception, while the traceback still holds every tensor the failed step
held: PyTorch's `torch.cuda.memory._snapshot()` when torch is imported and CUDA
initialised (segments and blocks always; the trace of allocations only when the
program records history), and JAX's `jax.profiler.device_memory_profile()` when
the exception is JAX's. Neither framework is ever imported or initialised here.

Each record is written to DIR (made if missing) as oomlens-<pid>-<n>-torch.pickle
or oomlens-<pid>-<n>-jax.prof, at most `limit` bytes each (a larger one is not
kept) and at most MAX_SAVES per process (an OOM caught and retried in a loop does
not fill the disk). Nothing here raises: every record that could not be saved is
one note saying why, and a partly written file is removed.
"""
from __future__ import annotations

import os
import pickle
import sys
import threading
from typing import List, NamedTuple, Optional

MAX_SAVES = 8  # records written per process, all OOMs together


class Saved(NamedTuple):
    paths: List[str]  # the records written, to be read with the exception's text
    notes: List[str]  # one line for each record that was not


class _TooLarge(Exception):
    pass


class _Bounded:
    """A file that refuses to grow past limit bytes (pickle.dump writes through it)."""

    def __init__(self, out, limit: int):
        self._out, self._left = out, limit

    def write(self, data) -> int:
        size = len(memoryview(data).cast("B"))
        if size > self._left:
            raise _TooLarge()
        self._left -= size
        return self._out.write(data)


_saves = {"count": 0, "lock": threading.Lock()}  # two threads may fail at once


def _next_number() -> Optional[int]:
    """The number of the next record this process saves, or None past MAX_SAVES."""
    with _saves["lock"]:
        if _saves["count"] >= MAX_SAVES:
            return None
        _saves["count"] += 1
        return _saves["count"]


def _torch_snapshot():
    """What takes PyTorch's snapshot, or None when CUDA was never initialised."""
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_initialized():
        return None
    return cuda.memory._snapshot


def _jax_profile(exc: BaseException, is_jax):
    """What takes JAX's device memory profile, when the exception is JAX's (its
    backend is up: asking another would start one), or None."""
    jax = sys.modules.get("jax")
    if jax is None or not is_jax(exc):
        return None
    return jax.profiler.device_memory_profile


def _write(path: str, limit: int, dump) -> str:
    """Writes one record through dump(file) to a new file at path; the path."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    try:
        with open(path, "xb") as out:  # never over a file that is there
            dump(_Bounded(out, limit))
    except BaseException:
        try:
            os.unlink(path)
        except OSError:
            pass
        raise
    return path


def _save_one(saved: Saved, what: str, directory: str, suffix: str, limit: int, find, dump) -> None:
    """find() gives what takes the record (None: nothing to take); dump writes it to a file."""
    try:
        take = find()
        number = _next_number() if take is not None else None
        if take is not None and number is None:
            saved.notes.append(f"{what} not saved: this process saved {MAX_SAVES} records already")
        if number is None:
            return
        value = take()
        path = os.path.join(directory, f"oomlens-{os.getpid()}-{number}-{suffix}")
        saved.paths.append(_write(path, limit, lambda out: dump(value, out)))
    except _TooLarge:
        saved.notes.append(f"{what} not saved: larger than {limit} bytes (install(save_state_bytes=...))")
    except Exception as failure:
        saved.notes.append(f"{what} not saved: {failure!r}")


def save_state(exc: BaseException, directory: str, limit: int, is_jax) -> Saved:
    """Saves what the allocators hold now to directory; never raises."""
    saved = Saved([], [])
    _save_one(saved, "PyTorch memory snapshot", directory, "torch.pickle", limit, _torch_snapshot,
              lambda snapshot, out: pickle.dump(snapshot, out, protocol=pickle.HIGHEST_PROTOCOL))
    _save_one(saved, "JAX device memory profile", directory, "jax.prof", limit, lambda: _jax_profile(exc, is_jax),
              lambda profile, out: out.write(profile))
    return saved
