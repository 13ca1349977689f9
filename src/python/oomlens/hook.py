"""Diagnose out-of-memory exceptions where they are raised.

``oomlens.install()`` adds oomlens to ``sys.excepthook``, ``threading.excepthook``
and, in IPython or Jupyter, the shell's custom exception handler. An uncaught
exception that is an OOM (JAX's and jaxlib's ``XlaRuntimeError`` /
``JaxRuntimeError`` with RESOURCE_EXHAUSTED, ``torch.OutOfMemoryError`` and
``torch.cuda.OutOfMemoryError``, TensorFlow's ``ResourceExhaustedError``,
``MemoryError``, or any exception whose text oomlens recognises, its
``__cause__`` and ``__context__`` included) is diagnosed after its traceback is
printed. Classes are matched by module and name: jax, torch and tensorflow are
never imported here. The hook that was there before still runs first, the
exception is never swallowed, the exit status is unchanged, and if oomlens itself
fails the traceback has been printed already and one line says why.

``with oomlens.watch(): ...`` diagnoses an OOM raised inside the block and lets it
propagate. With ``install(capture_stderr=True)`` the last few MiB written to file
descriptor 2 (where runtimes print allocation dumps and compile reports before they
raise) join the diagnosis.
"""
from __future__ import annotations

import contextlib
import html
import os
import sys
import threading
from typing import Iterator, List, Optional, Tuple

from . import _core
from ._text import as_bytes
from .report import Report
from . import state as _records

# (module prefix, class name) of the exceptions that are OOMs whatever their text,
# and of those that are OOMs when their text says RESOURCE_EXHAUSTED.
_OOM_CLASSES = [("torch", "OutOfMemoryError"), ("tensorflow", "ResourceExhaustedError"),
                ("builtins", "MemoryError")]
_RESOURCE_EXHAUSTED_CLASSES = [("jax", "JaxRuntimeError"), ("jax", "XlaRuntimeError"),
                               ("jaxlib", "JaxRuntimeError"), ("jaxlib", "XlaRuntimeError")]

_state = {"installed": False, "previous": None, "previous_thread": None, "ipython": None, "capture": None,
          "save_state": None}  # (directory, bytes) of install(save_state=...)
last_report: Optional[Report] = None  # the last diagnosis the hook made


def _is_class(exc: BaseException, classes: List[Tuple[str, str]]) -> bool:
    for cls in type(exc).__mro__:
        module = getattr(cls, "__module__", "") or ""
        for prefix, name in classes:
            if cls.__name__ == name and (module == prefix or module.startswith(prefix + ".")):
                return True
    return False


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """exc, then its __cause__ and __context__ chain, each once."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _message(exc: BaseException) -> Optional[str]:
    """str(exc), or None when its __str__ raises: the other exceptions of the chain
    are still read (an OOM in __cause__ under an exception that cannot say itself)."""
    try:
        return str(exc)
    except Exception:
        return None


def is_oom(exc: BaseException) -> bool:
    """Whether exc (or an exception it chains) is an OOM by its class alone."""
    for e in _chain(exc):
        if _is_class(e, _OOM_CLASSES):
            return True
        if _is_class(e, _RESOURCE_EXHAUSTED_CLASSES) and "RESOURCE_EXHAUSTED" in (_message(e) or ""):
            return True
    return False


def _is_jax(exc: BaseException) -> bool:
    return any(_is_class(e, _RESOURCE_EXHAUSTED_CLASSES) for e in _chain(exc))


def diagnose_exception(exc: BaseException, *, save_state: Optional[Tuple[str, int]] = None) -> Optional[Report]:
    """The diagnosis of an exception and what it chains (with the stderr kept by
    install(capture_stderr=True)), or None when it is no OOM oomlens can read.
    save_state (directory, bytes), or install(save_state=DIR)'s: where the
    allocators' records are saved first, to be read with the exception."""
    texts = [f"{type(e).__module__}.{type(e).__name__}: {message}"
             for e in _chain(exc) for message in [_message(e)] if message is not None]
    captured = _state["capture"].text() if _state["capture"] else ""
    text = (captured + "\n" if captured else "") + "\n".join(reversed(texts))  # the root cause first
    core = _core.diagnose(as_bytes(text), name="<exception>", chip="")
    if not core.incident_count and not is_oom(exc):
        return None
    save_state = save_state or _state["save_state"]
    if save_state is None:
        return Report(core)
    saved = _records.save_state(exc, save_state[0], save_state[1], _is_jax)
    records = [_core.scan_paths([path], jobs=1)[0] for path in saved.paths]
    report = Report(_core.merge([core] + records) if records else core)
    report.saved_state, report.save_notes = saved.paths, saved.notes
    return report


def _explain(exc: BaseException, show, save_state: Optional[Tuple[str, int]] = None) -> None:
    """Diagnoses exc once and shows the report; never raises."""
    global last_report
    if exc is None or getattr(exc, "__oomlens_diagnosed__", False):
        return
    try:
        report = diagnose_exception(exc, save_state=save_state)
        with contextlib.suppress(Exception):
            exc.__oomlens_diagnosed__ = True
        if report is None:
            return
        last_report = report
        show(report)
    except Exception as failure:  # oomlens must never hide the original error
        with contextlib.suppress(Exception):
            print(f"oomlens: could not diagnose this exception: {failure!r}", file=sys.stderr)


def _saved_lines(report: Report) -> str:
    lines = [f"oomlens: saved {path}\n" for path in getattr(report, "saved_state", [])]
    return "".join(lines + [f"oomlens: {note}\n" for note in getattr(report, "save_notes", [])])


def _as_text(report: Report) -> str:
    if report.incidents:
        return str(report) + _saved_lines(report)  # "oomlens: 1 OOM incident in ..."
    return ("oomlens: this out-of-memory error names no figures oomlens can read; run `oomlens` on the job's log\n"
            + _saved_lines(report))


def _show_text(report: Report) -> None:
    sys.stderr.write("\n" + _as_text(report))
    sys.stderr.flush()


def _excepthook(exc_type, exc, tb) -> None:
    previous = _state["previous"] or sys.__excepthook__
    try:
        previous(exc_type, exc, tb)  # the traceback first, as it was
    finally:
        _explain(exc, _show_text)


def _thread_excepthook(args) -> None:
    previous = _state["previous_thread"] or threading.__excepthook__
    try:
        previous(args)
    finally:
        _explain(args.exc_value, _show_text)


def _ipython_handler(shell, etype, evalue, tb, tb_offset=None):
    shell.showtraceback((etype, evalue, tb), tb_offset=tb_offset)

    def show(report: Report) -> None:
        from IPython.display import display  # IPython is running: it is importable
        saved = html.escape(_saved_lines(report))
        display({"text/plain": _as_text(report),
                 "text/html": report._repr_html_() + (f"<pre>{saved}</pre>" if saved else "")}, raw=True)

    _explain(evalue, show)


def _where_to_save(directory, limit) -> Optional[Tuple[str, int]]:
    """(directory, bytes) of save_state=, save_state_bytes=, checked; None for no directory."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"save_state_bytes={limit!r}: give a number of bytes, e.g. 256 << 20")
    if directory is None:
        return None
    return os.path.abspath(os.fsdecode(os.fspath(directory))), limit  # as the job's cwd was at install


def install(*, capture_stderr: bool = False, capture_bytes: int = 4 << 20,
            save_state: Optional["os.PathLike[str] | str"] = None, save_state_bytes: int = 256 << 20) -> None:
    """Diagnoses uncaught OOM exceptions after their traceback (see the module's doc).
    save_state: a directory where the allocators' records are saved at each OOM (at
    most save_state_bytes each). Installing twice changes nothing; uninstall()
    restores the hooks that were there."""
    if _state["installed"]:
        return
    _state["save_state"] = _where_to_save(save_state, save_state_bytes)
    _state["previous"] = sys.excepthook
    _state["previous_thread"] = threading.excepthook
    sys.excepthook = _excepthook
    threading.excepthook = _thread_excepthook
    shell = _ipython_shell()
    if shell is not None:
        shell.set_custom_exc((BaseException,), _ipython_handler)
        _state["ipython"] = shell
    if capture_stderr:
        from .capture import StderrTail
        _state["capture"] = StderrTail(capture_bytes)
    _state["installed"] = True


def uninstall() -> None:
    if not _state["installed"]:
        return
    sys.excepthook = _state["previous"] or sys.__excepthook__
    threading.excepthook = _state["previous_thread"] or threading.__excepthook__
    if _state["ipython"] is not None:
        _state["ipython"].set_custom_exc((), None)
    if _state["capture"] is not None:
        _state["capture"].close()
    _state.update(installed=False, previous=None, previous_thread=None, ipython=None, capture=None,
                  save_state=None)


def _ipython_shell():
    if "IPython" not in sys.modules:
        return None
    try:
        return sys.modules["IPython"].get_ipython()
    except Exception:
        return None


@contextlib.contextmanager
def watch(*, save_state=None, save_state_bytes: int = 256 << 20):
    """Diagnoses an OOM raised inside the block (printed to stderr), then lets it
    propagate; save_state as install's."""
    where = _where_to_save(save_state, save_state_bytes)
    try:
        yield
    except BaseException as exc:
        _explain(exc, _show_text, where)
        raise
