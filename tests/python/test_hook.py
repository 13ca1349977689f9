"""oomlens.install(): OOM exceptions diagnosed after their traceback, in a real
interpreter (a subprocess each), with the real PyTorch and IPython from Debian and a
stand-in for jaxlib's class (JAX is not packaged in Debian)."""
import pickle
import subprocess
import sys
import textwrap

import pytest

from conftest import SEED, TORCH_OOM, run_python

RAISE_TORCH = f"import torch\nraise torch.cuda.OutOfMemoryError({TORCH_OOM!r})\n"
# jaxlib's class, by module and name: what the hook matches (it never imports jax).
JAX_STAND_IN = textwrap.dedent("""
    XlaRuntimeError = type("XlaRuntimeError", (RuntimeError,), {"__module__": "jaxlib.xla_extension"})
""")


def traceback_then_diagnosis(err, exc_name):
    at_traceback = err.find("Traceback (most recent call last)")
    at_exception = err.find(exc_name)
    at_diagnosis = err.find("oomlens: ")
    return 0 <= at_traceback < at_exception < at_diagnosis


def test_a_torch_cuda_oom_keeps_its_traceback_and_exit_status():
    plain = run_python("pass\npass\n" + RAISE_TORCH)  # the raise on the same line as below
    hooked = run_python("import oomlens\noomlens.install()\n" + RAISE_TORCH)
    assert hooked[0] == plain[0] == 1
    assert plain[2] in hooked[2], "the traceback is printed as it was"
    assert traceback_then_diagnosis(hooked[2], "torch.cuda.OutOfMemoryError")
    assert "PyTorch GPU out of memory" in hooked[2] and "requested 20.00M" in hooked[2]


def test_a_jax_resource_exhausted_error_by_module_and_name():
    code = "import oomlens\noomlens.install()\n" + JAX_STAND_IN + f"raise XlaRuntimeError({SEED!r})\n"
    rc, _, err = run_python(code)
    assert rc == 1 and "jax" not in sys.modules
    assert traceback_then_diagnosis(err, "XlaRuntimeError")
    assert "E0101" in err and "oversize" in err


def test_chained_exceptions_are_read():
    code = "import oomlens\noomlens.install()\n" + JAX_STAND_IN + textwrap.dedent(f"""
        try:
            raise XlaRuntimeError({SEED!r})
        except Exception as e:
            raise RuntimeError("training step failed") from e
    """)
    rc, _, err = run_python(code)
    assert rc == 1 and "RuntimeError: training step failed" in err and "oversize" in err


def test_an_exception_that_cannot_say_itself_leaves_the_oom_it_chains_readable():
    # attack review K2: str() raising made the hook give up on the whole chain
    code = "import oomlens\noomlens.install()\n" + JAX_STAND_IN + textwrap.dedent(f"""
        class Bad(Exception):
            def __str__(self):
                raise RuntimeError("str() exploded")
        raise Bad() from XlaRuntimeError({SEED!r})
    """)
    rc, _, err = run_python(code)
    assert rc == 1 and "could not diagnose" not in err
    assert "E0101" in err and "oversize" in err


def test_other_exceptions_pass_untouched_and_the_previous_hook_runs_first():
    code = textwrap.dedent("""
        import sys
        def previous(t, e, tb):
            sys.stderr.write("previous hook saw " + t.__name__ + "\\n")
        sys.excepthook = previous
        import oomlens
        oomlens.install()
        raise ValueError("not an OOM")
    """)
    rc, _, err = run_python(code)
    assert rc == 1 and err == "previous hook saw ValueError\n"


def test_a_failing_oomlens_never_hides_the_traceback():
    code = "import oomlens, oomlens.hook\noomlens.install()\n" \
           "def broken(*a, **k): raise OSError('no rules')\noomlens.hook._core.diagnose = broken\n" + RAISE_TORCH
    rc, _, err = run_python(code)
    assert rc == 1 and "torch.cuda.OutOfMemoryError" in err
    assert "oomlens: could not diagnose this exception: OSError('no rules')" in err


def test_threads_and_memory_errors():
    code = textwrap.dedent("""
        import threading, oomlens
        oomlens.install()
        def work():
            raise MemoryError()
        t = threading.Thread(target=work)
        t.start(); t.join()
        print("main thread goes on")
    """)
    rc, out, err = run_python(code)
    assert rc == 0 and out == "main thread goes on\n"
    # A bare MemoryError prints no figure, yet it is an OOM: an incident of host memory.
    assert "MemoryError" in err and "oomlens: 1 OOM incident" in err and "host_memory" in err


def test_watch_diagnoses_and_reraises():
    code = "import oomlens, torch\ntry:\n    with oomlens.watch():\n        raise torch.cuda.OutOfMemoryError(" \
           + repr(TORCH_OOM) + ")\nexcept RuntimeError:\n    print('still raised')\n"
    rc, out, err = run_python(code)
    assert rc == 0 and out == "still raised\n" and "PyTorch GPU out of memory" in err


def test_captured_stderr_joins_the_diagnosis():
    code = textwrap.dedent(f"""
        import os, oomlens
        oomlens.install(capture_stderr=True)
        os.write(2, ({SEED!r} + "\\n").encode())  # what a runtime prints from C++ before raising
        raise MemoryError()
    """)
    rc, _, err = run_python(code)
    assert rc == 1
    assert err.index("Attempting to reserve 29.49G") < err.index("Traceback"), "passed on to the real stderr"
    assert traceback_then_diagnosis(err, "MemoryError") and "E0101" in err.split("oomlens: ", 1)[1]


def test_a_process_that_outlives_the_captured_stderr_can_still_write_to_it(tmp_path):
    # The child waits until its parent has exited (it is re-parented), then writes to stderr:
    # the pipe that replaced fd 2 had no reader then, and a write killed it by SIGPIPE.
    done = tmp_path / "child.txt"
    child = textwrap.dedent(f"""
        import os, sys, time
        parent = os.getppid()
        while os.getppid() == parent:
            time.sleep(0.02)
        sys.stderr.write("still-writing\\n")
        sys.stderr.flush()
        open({str(done)!r}, "w").write("done")
    """)
    code = textwrap.dedent(f"""
        import subprocess, sys, oomlens
        oomlens.install(capture_stderr=True)
        subprocess.Popen([sys.executable, "-c", {child!r}])
    """)
    rc, _, err = run_python(code)  # returns once every holder of its stderr has closed it
    assert rc == 0
    assert done.read_text() == "done", "the child lived on after its first write to stderr"
    assert "still-writing" in err, "what it wrote reached the real stderr"


def test_ipython_shows_the_html_report_inline():
    pytest.importorskip("IPython")
    code = textwrap.dedent("""
        from IPython.core.interactiveshell import InteractiveShell
        from IPython.utils.capture import capture_output
        shell = InteractiveShell.instance()
        import oomlens
        oomlens.install()
        with capture_output() as captured:
            shell.run_cell(%r)
        assert "OutOfMemoryError" in captured.stdout + captured.stderr, "the traceback is shown"
        bundles = [o.data for o in captured.outputs]
        assert any("text/html" in b and "PyTorch GPU out of memory" in b["text/html"] for b in bundles), bundles
        print("html shown inline")
    """ % RAISE_TORCH)
    rc, out, err = run_python(code)
    assert rc == 0, err
    assert "html shown inline" in out


# install(save_state=DIR): the allocators' records saved at the OOM and read with it.
# Debian's torch runs on the CPU, so the test gives it what a GPU's torch has: CUDA
# initialised, and a snapshot (tests/gen's, as _snapshot() returns it when no history
# is recorded: segments and blocks, no trace). JAX is not packaged in Debian: its
# stand-in returns a real profile's bytes (testdata/records/sharded-serving.prof).
TORCH_ON_A_GPU = textwrap.dedent("""
    import sys, torch
    sys.path.insert(0, "tests/gen")
    import torch_snapshots
    snapshot = torch_snapshots.expandable_aggregate()
    snapshot["device_traces"] = [[]]
    torch.cuda.is_initialized = lambda: True
    torch.cuda.memory._snapshot = lambda: snapshot
""")
TORCH_OOM_4G = ("CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 44.34 GiB of which "
                "310.00 MiB is free. Including non-PyTorch memory, this process has 44.03 GiB memory in use. Of the "
                "allocated memory 41.00 GiB is allocated by PyTorch, and 256.00 MiB is reserved by PyTorch but "
                "unallocated. If reserved but unallocated memory is large try setting "
                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
JAX_WITH_A_PROFILE = JAX_STAND_IN + textwrap.dedent("""
    import sys, types
    jax = types.ModuleType("jax")
    jax.profiler = types.SimpleNamespace(
        device_memory_profile=lambda backend=None: open("testdata/records/sharded-serving.prof", "rb").read())
    sys.modules["jax"] = jax
""")


def saved_files(directory):
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


def raise_in(prelude, directory, exception, *, limit=None):
    """A script that installs the hook saving state to directory and raises exception."""
    options = f"save_state={str(directory)!r}" + (f", save_state_bytes={limit}" if limit else "")
    return prelude + f"import oomlens\noomlens.install({options})\nraise {exception}\n"


def test_save_state_keeps_the_snapshot_and_the_diagnosis_reads_it(tmp_path):
    state = tmp_path / "state"  # made by the hook
    rc, _, err = run_python(raise_in(TORCH_ON_A_GPU, state, f"torch.cuda.OutOfMemoryError({TORCH_OOM_4G!r})"))
    assert rc == 1
    (name,) = saved_files(state)
    saved = state / name
    assert name.endswith("-1-torch.pickle")
    with open(saved, "rb") as f:
        assert pickle.load(f)["allocator_settings"]["expandable_segments"] is True, "the snapshot, whole"
    assert traceback_then_diagnosis(err, "torch.cuda.OutOfMemoryError")
    diagnosis = err.split("oomlens: 1 OOM incident", 1)[1]
    assert "1 memory snapshot" in diagnosis and f"record    {saved}" in diagnosis
    # The snapshot's figures and owners, not only the message's: who held the memory.
    assert "the largest holder: transformers/optimization.py:640 step, 30.00G" in diagnosis
    assert "expandable segments were on" in diagnosis
    advice = diagnosis.split("advice", 1)[1].split("excerpt", 1)[0]
    assert "expandable_segments" not in advice, "never advised when it is on"
    assert "host <exception>" not in diagnosis, "the exception is no host"
    assert diagnosis.rstrip().endswith(f"oomlens: saved {saved}")


def test_save_state_keeps_a_jax_profile_for_a_jax_oom(tmp_path):
    rc, _, err = run_python(raise_in(JAX_WITH_A_PROFILE, tmp_path, f"XlaRuntimeError({SEED!r})"))
    assert rc == 1
    (name,) = saved_files(tmp_path)
    assert name.endswith("-1-jax.prof")
    assert (tmp_path / name).read_bytes() == open("testdata/records/sharded-serving.prof", "rb").read()
    diagnosis = err.split("oomlens: 1 OOM incident", 1)[1]
    assert "E0101" in diagnosis and f"record    {tmp_path / name}" in diagnosis


def test_save_state_takes_nothing_from_a_framework_that_never_started(tmp_path):
    # Debian's torch, CUDA never initialised: no snapshot, and nothing said about it.
    rc, _, err = run_python(raise_in("import torch\n", tmp_path / "state", f"torch.cuda.OutOfMemoryError({TORCH_OOM!r})"))
    assert rc == 1 and saved_files(tmp_path / "state") == []
    assert "PyTorch GPU out of memory" in err and "oomlens: saved" not in err and "not saved" not in err


def test_save_state_is_bounded_and_never_raises(tmp_path):
    rc, _, err = run_python(raise_in(TORCH_ON_A_GPU, tmp_path, f"torch.cuda.OutOfMemoryError({TORCH_OOM_4G!r})",
                                     limit=100))
    assert rc == 1 and saved_files(tmp_path) == [], "a partly written record is removed"
    assert "oomlens: PyTorch memory snapshot not saved: larger than 100 bytes" in err
    assert "PyTorch GPU out of memory" in err, "diagnosed from the message alone"
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    rc, _, err = run_python(raise_in(TORCH_ON_A_GPU, blocked, f"torch.cuda.OutOfMemoryError({TORCH_OOM_4G!r})"))
    assert rc == 1 and "oomlens: PyTorch memory snapshot not saved: FileExistsError" in err
    assert "could not diagnose" not in err and "PyTorch GPU out of memory" in err


def test_save_state_stops_after_a_few_records_per_process(tmp_path):
    code = TORCH_ON_A_GPU + textwrap.dedent(f"""
        import oomlens
        for attempt in range(12):  # an OOM caught and retried in a loop
            try:
                with oomlens.watch(save_state={str(tmp_path)!r}):
                    raise torch.cuda.OutOfMemoryError({TORCH_OOM_4G!r})
            except torch.cuda.OutOfMemoryError:
                pass
    """)
    rc, _, err = run_python(code)
    assert rc == 0 and len(saved_files(tmp_path)) == 8
    assert err.count("not saved: this process saved 8 records already") == 4
