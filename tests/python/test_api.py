"""The Python API gives what the CLI gives, from the same library."""
import io
import json
import os
import subprocess
import sys

import pytest

import oomlens
from conftest import BIN, ROOT, SEED, TORCH_OOM, bundled_logs, cli


def test_diagnose_gives_typed_objects():
    report = oomlens.diagnose(SEED)
    assert len(report) == 1 and bool(report)
    incident = report.incidents[0]
    assert (incident.kind, incident.code, incident.cause) == ("tpu_program_load", "E0101", "oversize")
    assert incident.facts["program"] == "jit_embedding_pipeline_step_fn"
    assert incident.fact("requested_bytes") == round(29.49 * 2**30)
    assert incident.printed["requested_bytes"] == "29.49G"
    assert incident.first.line == 1 and incident.first.input == "<paste>"
    assert incident.advice and incident.evidence
    assert "oversize" in repr(report)
    # advice ranked for this incident: 204.5x what is free is no batch problem
    assert incident.advice[0].startswith("Only 147.64M of HBM is free")
    assert [c["advice"][:20] for c in incident.also_consider] == ["Lower the batch (or "]
    assert "204.5x what is free" in incident.also_consider[0]["why"]
    assert incident.fit.startswith("a program of at most 147.64M")
    assert incident.seen["inputs"] == [0]


def test_the_oom_that_ended_the_job_comes_first():
    log = os.path.join(ROOT, "testdata", "logs", "aftermath", "compile_oom_retried_then_e0100_fatal_synthetic.log")
    fatal, survived = oomlens.scan([log]).incidents
    assert (fatal.code, fatal.ended_job, fatal.after["work"]) == ("E0100", True, 0)
    assert (survived.code, survived.ended_job, survived.after["steps"]) == ("E1000", False, 40)
    assert "the job went on after it" in repr(survived) and "went on" not in repr(fatal)
    assert (fatal.phase, survived.phase) == ("step", "compile")
    assert "40 completed steps" in fatal.phase_evidence and repr(fatal).endswith(", in step>")


def test_an_evaluation_oom_says_so_and_is_advised_for_evaluation():
    log = os.path.join(ROOT, "testdata", "logs", "aftermath", "torch_oom_retried_then_eval_oom_synthetic.log")
    fatal, survived = oomlens.scan([log]).incidents
    assert (fatal.phase, survived.phase) == ("eval", "warmup")
    assert "in evaluation_loop" in fatal.phase_evidence
    assert fatal.advice[0].startswith("It ran out while evaluating")
    assert not any("accumulate gradients" in a for a in fatal.advice)


def test_the_budget_printed_before_an_oom_is_the_incidents():
    log = os.path.join(ROOT, "testdata", "logs", "budget", "vllm_v0_max_seq_len_29k_issue10517.log")
    incident, = oomlens.scan([log]).incidents
    names = [b["name"] for b in incident.budget]
    assert names[0] == "weights_bytes" and {"capacity_bytes", "kv_cache_bytes", "gpu_memory_utilization"} <= set(names)
    kv = next(b for b in incident.budget if b["name"] == "kv_cache_bytes")
    assert kv["printed"] == "2.89GiB" and kv["source"]["line"] == 2 and kv["bytes"] == round(2.89 * 2**30)
    assert incident.fit.startswith("gpu_memory_utilization 0.93 for the configured 29000 tokens")


def test_the_models_figures_give_a_formula_beside_the_budget():
    log = os.path.join(ROOT, "testdata", "logs", "budget", "hf_trainer_lora_config_then_oom_synthetic.log")
    incident, = oomlens.scan([log]).incidents
    assert incident.fact("parameter_count") == 8043892736 and incident.fact("model_dtype") == "bfloat16"
    formula, = incident.formulas
    assert formula.startswith("training state by formula: 8,030,261,248 frozen parameters x 2 bytes (bfloat16)")
    assert "= 15.16G before activations" in formula


def test_a_healthy_start_up_has_its_budget_in_the_report():
    log = os.path.join(ROOT, "testdata", "logs", "budget", "vllm_profiling_results_two_runs_healthy.log")
    report = oomlens.scan([log])
    assert not report.incidents
    budget, = report.budgets
    weights = next(b for b in budget["budget"] if b["name"] == "weights_bytes")
    assert weights["printed"] == "7.48GiB", "the second start-up's, not a mix of both"


def test_diagnose_reads_a_pytorch_message_and_bytes():
    report = oomlens.diagnose(("torch.cuda.OutOfMemoryError: " + TORCH_OOM).encode())
    assert [i.kind for i in report] == ["pytorch_cuda"]
    assert report.incidents[0].fact("requested_bytes") == 20 * 2**20


def test_invalid_utf8_and_bytes_like_text_are_read_as_the_cli_reads_them(tmp_path):
    # attack review D1: one invalid byte made diagnose() raise TypeError, and the
    # hook gave up; K3: memoryviews and bytes paths were refused
    raw = b"junk \xc3\x28 \x80\xff bytes\n" + ("torch.cuda.OutOfMemoryError: " + TORCH_OOM).encode() + b"\n"
    escaped = raw.decode("utf-8", errors="surrogateescape")
    for text in (raw, escaped, bytearray(raw), memoryview(raw), "\ud800 " + escaped):
        report = oomlens.diagnose(text)
        assert [i.kind for i in report] == ["pytorch_cuda"], type(text)
        assert report.incidents[0].fact("requested_bytes") == 20 * 2**20
    log = tmp_path / "bad-utf8.log"
    log.write_bytes(raw)
    for item in (str(log), os.fsencode(str(log)), log, io.BytesIO(raw),
                 io.TextIOWrapper(io.BytesIO(raw), errors="surrogateescape")):
        assert [i.kind for i in oomlens.scan(item)] == ["pytorch_cuda"], type(item)
    exc = RuntimeError(escaped)
    assert oomlens.hook.diagnose_exception(exc) is not None


def test_jobs_out_of_range_is_a_value_error_not_an_abort():
    # attack review C2: scan(jobs=100000) aborted the interpreter
    for jobs in (0, -1, 100000, 1.5, True):
        with pytest.raises(ValueError, match="jobs="):
            oomlens.scan([os.path.join(ROOT, "testdata", "examples")], jobs=jobs)


def test_no_oom_is_an_empty_report():
    report = oomlens.diagnose("ValueError: shapes (3,) and (4,) not aligned")
    assert not report and report.incidents == [] and report.read_all


@pytest.mark.parametrize("log", bundled_logs(), ids=lambda p: os.path.relpath(p, ROOT))
def test_scan_equals_the_cli_json_on_every_bundled_log(log):
    code, out, _ = cli("--format", "json", log)
    report = oomlens.scan(log, jobs=1)
    assert report.to_json() == out
    assert bool(report) == (code == 1)


def test_several_files_equal_the_cli_whatever_the_jobs():
    logs = bundled_logs()[:12]
    _, out, _ = cli("--format", "json", *logs)
    assert oomlens.scan(logs, jobs=1).to_json() == out
    assert oomlens.scan(logs, jobs=3).to_json() == out


def test_renderings_equal_the_cli():
    log = os.path.join(ROOT, "testdata/examples/multihost_e0101.log")
    report = oomlens.scan(log)
    assert str(report) == cli("--color", "never", log)[1]
    assert report.to_markdown() == cli("--format", "markdown", log)[1]
    assert report.to_html() == cli("--format", "html", log)[1]
    fragment = report._repr_html_()  # for a notebook: the page's one element (tests/browser/notebook.mjs)
    assert fragment.startswith("<div class='oomlens-report'>") and fragment in report.to_html()
    assert "<svg" in fragment and "<title" not in fragment


def test_file_objects_and_directories():
    with open(os.path.join(ROOT, "testdata/examples/multihost_e0101.log"), "rb") as f:
        data = f.read()
    from_object = oomlens.scan(io.BytesIO(data))
    assert [i.cause for i in from_object] == [i.cause for i in oomlens.diagnose(data)]
    folder = oomlens.scan(os.path.join(ROOT, "testdata/logs/gpu"))
    assert len(folder.inputs) == len(os.listdir(os.path.join(ROOT, "testdata/logs/gpu")))
    with pytest.raises(FileNotFoundError, match="no such file"):
        oomlens.scan("does/not/exist.log")


def test_unreadable_input_is_a_problem_not_an_exception(tmp_path):
    bad = tmp_path / "cut.log.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 12)
    report = oomlens.scan(str(bad))
    assert not report.read_all
    assert any("cut.log.gz" in p.where for p in report.problems)


def test_merge_and_diff_equal_the_cli(tmp_path):
    a, b = bundled_logs()[0], bundled_logs()[1]
    ra, rb = oomlens.scan(a), oomlens.scan(b)
    (tmp_path / "a.json").write_text(ra.to_json())
    (tmp_path / "b.json").write_text(rb.to_json())
    _, merged, _ = cli("merge", "--format", "json", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert oomlens.merge([ra, rb.to_json()]).to_json() == merged
    assert oomlens.Report.from_json(ra.to_json()).to_json() == oomlens.merge([ra]).to_json()
    _, diffed, _ = cli("diff", "--format", "json", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert json.loads(oomlens.diff(ra, rb).to_json())["incidents"] == json.loads(diffed)["incidents"]


def test_a_report_that_is_not_one_is_a_value_error():
    with pytest.raises(ValueError, match="not an oomlens report"):
        oomlens.Report.from_json('{"schema_version": 2}')


def test_python_m_oomlens_is_the_cli():
    log = os.path.join(ROOT, "testdata/examples/multihost_e0101.log")
    for args in (["--format", "json", log], ["--version"], ["explain", "E0101"], ["--fail-on", "nope", log]):
        done = subprocess.run([sys.executable, "-m", "oomlens", *args], capture_output=True, text=True, cwd=ROOT)
        code, out, err = cli(*args)
        assert (done.returncode, done.stdout) == (code, out), args
    piped = subprocess.run([sys.executable, "-m", "oomlens"], input=SEED, capture_output=True, text=True)
    assert piped.returncode == 1 and "oversize" in piped.stdout


def test_ctrl_c_stops_a_scan_that_would_never_end(tmp_path):
    # A FIFO whose writer stays open: the scan waits for more forever, and Ctrl-C
    # (SIGINT) used to be handled only once it returned.
    fifo = tmp_path / "live.log"
    os.mkfifo(fifo)
    code = f"""
import os, signal, threading, time, oomlens
def writer():
    fd = os.open({str(fifo)!r}, os.O_WRONLY)
    os.write(fd, {SEED!r}.encode() + b"\\n")
    time.sleep(3600)
threading.Thread(target=writer, daemon=True).start()
threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    oomlens.scan({str(fifo)!r}, jobs=1)
except KeyboardInterrupt:
    print("interrupted")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (done.returncode, done.stdout) == (0, "interrupted\n"), done.stderr
