// oomlens._core: the library the CLI uses, as a Python extension (pybind11).
// Scans run with the GIL released, on a thread of their own so that Ctrl-C stops
// them (Interruptible); the Python package (src/python/oomlens) turns reports into
// typed objects.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <signal.h>
#include <unistd.h>  // STDIN_FILENO

#include <atomic>
#include <chrono>
#include <future>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/cli.h"
#include "oomlens/diff.h"
#include "oomlens/fleet.h"
#include "oomlens/merge.h"
#include "oomlens/render.h"
#include "oomlens/rules.h"
#include "oomlens/scanner.h"
#include "oomlens/version.h"

namespace py = pybind11;

namespace oomlens {
namespace {

// The built-in rules, loaded once (their samples are checked by the test suite).
const RuleSet& BuiltinRules() {
  static const RuleSet* rules = [] {
    auto* loaded = new RuleSet;
    std::vector<Problem> problems;
    if (!loaded->LoadBuiltin(&problems)) throw std::runtime_error("oomlens: the built-in rules did not load");
    return loaded;
  }();
  return *rules;
}

ScanOptions Options(const std::string& chip, const std::atomic<bool>* cancel) {
  ScanOptions options;
  options.chip = chip;
  options.cancel = cancel;
  return options;
}

// Runs scan(cancel) on a thread of its own while this one, holding the GIL only
// between waits, runs Python's signal handlers every 50 ms. An exception they raise
// (KeyboardInterrupt on Ctrl-C) cancels the scan and is raised here once it has
// stopped: Ctrl-C used to wait for the end of the scan (attack review K1). Handlers
// run only on Python's main thread; a scan called from another is not interrupted.
template <typename Scan>
auto Interruptible(Scan scan) -> decltype(scan(nullptr)) {
  using Result = decltype(scan(nullptr));
  std::atomic<bool> cancel{false};
  std::packaged_task<Result()> task([&scan, &cancel] { return scan(&cancel); });
  std::future<Result> done = task.get_future();
  std::thread worker(std::move(task));
  bool raised = false;
  {
    py::gil_scoped_release unlocked;
    while (done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      py::gil_scoped_acquire locked;
      if (!raised && PyErr_CheckSignals() != 0) raised = true;
      if (raised) cancel.store(true);
    }
  }
  worker.join();
  if (raised) throw py::error_already_set();  // the handler's exception, still set
  return done.get();                          // the scan's result, or its exception
}

// A report and the renderings Python asks of it.
struct PyReport {
  Report report;
  std::string Json() const {
    std::ostringstream out;
    RenderJson(report, out);
    return out.str();
  }
  std::string Text(bool color) const {
    std::ostringstream out;
    RenderOptions options;
    options.color = color;
    RenderText(report, options, out);
    return out.str();
  }
  std::string Render(const std::string& name) const {
    Format format = FormatNamed(name);
    std::ostringstream out;
    RenderReport(report, format, {}, out);
    return out.str();
  }
  // The report summarised by failure across its inputs (jobs), in a fleet format.
  std::string Fleet(const std::string& name) const {
    Format format = FormatNamed(name);
    if (!FleetFormat(format))
      throw py::value_error("a fleet report is text, json, markdown or html, not " + name);
    std::ostringstream out;
    RenderFleet(SummarizeFleet(report), format, out);
    return out.str();
  }
  // For a notebook's output: one element, its styles scoped to it.
  std::string HtmlFragment() const {
    std::ostringstream out;
    RenderHtmlFragment(report, out);
    return out.str();
  }
  std::string FleetHtmlFragment() const {
    std::ostringstream out;
    RenderFleetHtmlFragment(SummarizeFleet(report), out);
    return out.str();
  }
  static Format FormatNamed(const std::string& name) {
    std::optional<Format> format = ParseFormat(name);
    if (!format) throw py::value_error("unknown format '" + name + "'");
    return *format;
  }
};

PyReport Diagnose(const std::string& text, const std::string& name, const std::string& chip) {
  return Interruptible([&](const std::atomic<bool>* cancel) {
    Scanner scanner(BuiltinRules(), Options(chip, cancel));
    scanner.ScanText(text, name);
    return PyReport{scanner.Finish()};
  });
}

// Each path scanned alone and the reports merged, as the CLI does with several files.
std::pair<PyReport, bool> ScanPaths(const std::vector<std::string>& paths, const std::string& chip,
                                    int jobs) {
  if (jobs < 1 || jobs > 256)  // as -j: thousands of threads aborted the interpreter
    throw py::value_error("jobs=" + std::to_string(jobs) + ": give a number of threads from 1 to 256");
  std::vector<ScanInput> inputs;
  for (const auto& path : paths) inputs.push_back(ScanInput{path, ""});
  return Interruptible([&](const std::atomic<bool>* cancel) {
    bool read_all = true;
    Report report = ScanEach(inputs, BuiltinRules(), Options(chip, cancel), jobs, STDIN_FILENO, &read_all);
    return std::pair<PyReport, bool>{PyReport{std::move(report)}, read_all};
  });
}

// An open descriptor (a pipe Python feeds from a remote file) scanned to its end;
// gzip and zstd are decompressed. The flag is false when it could not be read whole.
std::pair<PyReport, bool> ScanFd(int fd, const std::string& name, const std::string& chip) {
  return Interruptible([&](const std::atomic<bool>* cancel) {
    Scanner scanner(BuiltinRules(), Options(chip, cancel));
    bool ok = scanner.ScanFd(fd, name);
    return std::pair<PyReport, bool>{PyReport{scanner.Finish()}, ok};
  });
}

// The report of an input that could not be opened at all: listed, with why.
PyReport Unreadable(const std::string& name, const std::string& why, const std::string& help) {
  Report report;
  report.inputs.push_back(InputSummary{name, 0, 0, false, ""});
  report.problems.push_back(Problem{Problem::Severity::kError, name, why, help});
  return PyReport{std::move(report)};
}

// Reports written with --format json merged as `oomlens merge` merges them, into
// JSON: the step of a tree reduction, whose parts travel as text between processes.
std::string MergeJson(const std::vector<std::string>& parts, const std::string& chip) {
  std::string error;
  std::ostringstream out;
  {
    py::gil_scoped_release unlocked;
    ReportMerger merger(BuiltinRules(), chip, parts.size() > 1);
    for (size_t k = 0; k < parts.size() && error.empty(); ++k) {
      Report part;
      if (ParseJsonReport(parts[k], &part, &error)) merger.Add(std::move(part));
      else error = "part " + std::to_string(k) + " is not an oomlens report: " + error;
    }
    if (error.empty()) RenderJson(merger.Finish(), out);
  }
  if (!error.empty()) throw py::value_error(error);
  return out.str();
}

// (name, text) pairs, each scanned alone, then merged.
PyReport ScanTexts(const std::vector<std::pair<std::string, std::string>>& texts, const std::string& chip) {
  return Interruptible([&](const std::atomic<bool>* cancel) {
    ReportMerger merger(BuiltinRules(), chip, texts.size() > 1);
    for (const auto& [name, text] : texts) {
      Scanner scanner(BuiltinRules(), Options(chip, cancel));
      scanner.ScanText(text, name);
      merger.Add(scanner.Finish());
    }
    return PyReport{merger.Finish()};
  });
}

// A report written with --format json, read back and finished again (facts
// derived, causes decided) as `oomlens diff` does with a report.
PyReport ReadReport(const std::string& json) {
  Report report;
  std::string error;
  if (!ParseJsonReport(json, &report, &error)) throw py::value_error("not an oomlens report: " + error);
  return PyReport{Refinish(std::move(report), BuiltinRules(), "")};
}

PyReport Merge(const std::vector<PyReport*>& parts, const std::string& chip) {
  std::vector<Report> copies;
  for (const PyReport* part : parts) copies.push_back(part->report);
  py::gil_scoped_release unlocked;
  return PyReport{MergeReports(std::move(copies), BuiltinRules(), chip)};
}

// {"json": ..., "text": ...} of the comparison of two reports.
py::dict Diff(const PyReport& before, const PyReport& after, const std::string& before_name,
              const std::string& after_name) {
  ReportDiff diff = DiffReports(before.report, after.report, before_name, after_name);
  std::ostringstream json, text;
  RenderDiffJson(diff, json);
  RenderDiffText(diff, text);
  py::dict out;
  out["json"] = json.str();
  out["text"] = text.str();
  return out;
}

std::atomic<bool> g_interrupted{false};
void OnInterrupt(int) { g_interrupted.store(true); }

// The command line, as the oomlens binary runs it: `python -m oomlens ...`.
// Ctrl-C stops the scan as in the binary while it runs; Python's handler comes back after.
int Main(const std::vector<std::string>& args) {
  std::vector<const char*> argv = {"oomlens"};
  for (const auto& a : args) argv.push_back(a.c_str());
  struct sigaction ours {
  }, python{};
  ours.sa_handler = OnInterrupt;
  ::sigaction(SIGINT, &ours, &python);
  int code;
  {
    py::gil_scoped_release unlocked;
    code = RunCliOnStdio(static_cast<int>(argv.size()), argv.data(), &g_interrupted);
  }
  ::sigaction(SIGINT, &python, nullptr);
  return code;
}

}  // namespace
}  // namespace oomlens

PYBIND11_MODULE(_core, m) {
  using namespace oomlens;
  m.doc() = "The oomlens core (C++): recognise OOM messages in logs and diagnose them.";
  m.attr("__version__") = Version();
  py::class_<PyReport>(m, "Report")
      .def("json", &PyReport::Json, "The JSON report (schema version 1), as the CLI writes it.")
      .def("text", &PyReport::Text, py::arg("color") = false, "The text report.")
      .def("render", &PyReport::Render, py::arg("format"),
           "The report in a format of --format (html, markdown ...).")
      .def("fleet", &PyReport::Fleet, py::arg("format") = "json",
           "The report summarised by failure across its inputs (--fleet): text, json, markdown or html.")
      .def("html_fragment", &PyReport::HtmlFragment,
           "The HTML report as one <div> whose styles apply inside it only (a notebook's output).")
      .def("fleet_html_fragment", &PyReport::FleetHtmlFragment,
           "The fleet report as one <div> whose styles apply inside it only (a notebook's output).")
      .def_property_readonly("incident_count", [](const PyReport& r) { return r.report.incidents.size(); });
  m.def("diagnose", &Diagnose, py::arg("text"), py::arg("name") = "<paste>", py::arg("chip") = "");
  m.def("scan_paths", &ScanPaths, py::arg("paths"), py::arg("chip") = "", py::arg("jobs") = 1);
  m.def("scan_texts", &ScanTexts, py::arg("texts"), py::arg("chip") = "");
  m.def("scan_fd", &ScanFd, py::arg("fd"), py::arg("name"), py::arg("chip") = "");
  m.def("unreadable", &Unreadable, py::arg("name"), py::arg("why"), py::arg("help") = "");
  m.def("merge_json", &MergeJson, py::arg("parts"), py::arg("chip") = "");
  m.def("read_report", &ReadReport, py::arg("json"));
  m.def("merge", &Merge, py::arg("parts"), py::arg("chip") = "");
  m.def("diff", &Diff, py::arg("before"), py::arg("after"), py::arg("before_name") = "before",
        py::arg("after_name") = "after");
  m.def("main", &Main, py::arg("args"), "Runs the oomlens command line; returns its exit code.");
}
