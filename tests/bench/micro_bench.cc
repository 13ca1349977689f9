// Micro-benchmarks of the scanning pipeline's stages (Google Benchmark):
//
//   build/micro_bench                        all of them
//   build/micro_bench --benchmark_filter=Prefilter
//
// Inputs are generated here, deterministically: log lines of the kinds
// tests/gen/noise_log.py writes, the seed E0101 message, MaxText Memstats figures.
// Figures are MB/s (SetBytesProcessed) or items/s; compare runs on one machine only.
#include <benchmark/benchmark.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/analyze/decide.h"
#include "core/input/line_cleaner.h"
#include "core/input/line_reader.h"
#include "core/recognize/recognizer.h"
#include "core/rules/literal_search.h"
#include "core/rules/prefilter.h"
#include "core/rules/signature_patterns.h"
#include "oomlens/rules.h"
#include "oomlens/scanner.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

const RuleSet& Rules() {
  static const RuleSet* rules = [] {
    auto* r = new RuleSet();
    std::vector<Problem> problems;
    if (!r->LoadBuiltin(&problems)) std::abort();
    return r;
  }();
  return *rules;
}

// A deterministic training log without OOMs: glog and Python logging lines,
// progress bars, quota warnings; one line in figure_every is a Memstats figure
// (0: none; -1: none and no quota warning either, so no line holds a literal).
std::string NoiseLog(size_t bytes, int figure_every) {
  std::string out;
  uint32_t state = 12345;
  auto next = [&state] { return state = state * 1664525u + 1013904223u; };
  for (uint64_t step = 0; out.size() < bytes; ++step) {
    std::string n = std::to_string(step);
    switch (next() % 5) {
      case 0:
        out += "I1130 12:46:22.966514  1046 train.py:206] step " + n +
               " loss=0.2082 tokens/s/device=4706 mfu=0.46\n";
        break;
      case 1:
        out += "2026-11-30 12:00:41,001 - trainer - INFO - epoch 1 batch " + n +
               " accuracy 0.904 grad_norm 1.626\n";
        break;
      case 2:
        out += "step " + n + ":  40%|####      | 200/500 [00:05<00:07, 40.1it/s]\rstep " + n +
               ": 100%|##########| 500/500\n";
        break;
      case 3:
        if (figure_every < 0) {
          out += "I1130 12:47:29.974433  1047 data.py:41] prefetched shard " + n + " of 2048\n";
          break;
        }
        out +=
            "W1130 12:00:00.000000  77 gcs_client.cc:91] RESOURCE_EXHAUSTED: Quota exceeded for quota metric "
            "'Write requests'; retrying in 6s\n";
        break;
      default:
        out += "I1130 12:47:29.974433  1047 checkpointing.py:88] saved checkpoint " + n +
               " to gs://bucket/run/ckpt\n";
        break;
    }
    if (figure_every > 0 && step % static_cast<uint64_t>(figure_every) == 0)
      out += "Memstats: step " + n + ": Using (GB) 3." + std::to_string(next() % 10) +
             "0 / 30.75 (11.0%) on TPU_" + std::to_string(next() % 8) + "(process=0,(1,0,0,0))\n";
  }
  return out;
}

const char kSeed[] =
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting "
    "to "
    "reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and "
    "147.64M reservable. Scope: unknown..: while running replica 0 and partition 34 of a replicated "
    "computation "
    "(other replicas may have failed as well).\n";

void BM_ParseSize(benchmark::State& state) {
  const std::vector<std::string> sizes = {"29.49G",    "147.64M", "0B", "3.95G (4,237,689,856 bytes)",
                                          "20.00 MiB", "1024 kB"};
  std::string error;
  size_t i = 0, bytes = 0;
  for (auto _ : state) {
    const std::string& text = sizes[i++ % sizes.size()];
    benchmark::DoNotOptimize(ParseSize(text, &error));
    bytes += text.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_ParseSize);

// The fast path's loop: find the first line holding a literal, go past it, again.
template <typename Find>
void SkipThrough(benchmark::State& state, const std::string& text, Find find) {
  for (auto _ : state) {
    std::string_view rest = text;
    size_t lines = 0;
    while (!rest.empty()) {
      size_t hit = find(rest);
      if (hit == std::string_view::npos) break;
      size_t nl = rest.find('\n', hit);
      rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
      ++lines;
    }
    benchmark::DoNotOptimize(lines);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

// 8 MiB of noise, with a figure every `figure_every` lines (0: none).
const std::string& CachedNoise(int figure_every) {
  static std::map<int, std::string> logs;
  auto it = logs.find(figure_every);
  if (it == logs.end()) it = logs.emplace(figure_every, NoiseLog(8 << 20, figure_every)).first;
  return it->second;
}

void BM_PrefilterLiteralSearch(benchmark::State& state) {
  const std::string& text = CachedNoise(static_cast<int>(state.range(0)));
  Prefilter prefilter(Rules().Literals());
  SkipThrough(state, text, [&prefilter](std::string_view t) { return prefilter.Find(t); });
}
BENCHMARK(BM_PrefilterLiteralSearch)->Arg(0)->Arg(6);

// The quiet log of tests/bench/compare.sh: the first pass alone (AVX-512BW where
// the CPU has it), no line to stop at.
void BM_PrefilterQuietLog(benchmark::State& state) {
  const std::string& text = CachedNoise(-1);
  Prefilter prefilter(Rules().Literals());
  if (prefilter.Find(text) != std::string_view::npos) state.SkipWithError("the quiet log holds a literal");
  SkipThrough(state, text, [&prefilter](std::string_view t) { return prefilter.Find(t); });
}
BENCHMARK(BM_PrefilterQuietLog);

// The same on one read's worth (the scanner's 256 KiB chunk), which the copy in
// read() has just put in the cache.
void BM_PrefilterQuietChunk(benchmark::State& state) {
  const std::string chunk = CachedNoise(-1).substr(0, LineReader::kDefaultChunk);
  Prefilter prefilter(Rules().Literals());
  SkipThrough(state, chunk, [&prefilter](std::string_view t) { return prefilter.Find(t); });
}
BENCHMARK(BM_PrefilterQuietChunk);

void BM_PrefilterRe2Alternation(benchmark::State& state) {  // what the fast path used before
  const std::string& text = CachedNoise(static_cast<int>(state.range(0)));
  std::string pattern;
  for (const auto& literal : Rules().Literals())
    pattern += (pattern.empty() ? "" : "|") + RE2::QuoteMeta(literal);
  RE2 re(pattern, RE2::Latin1);
  SkipThrough(state, text, [&re](std::string_view t) {
    re2::StringPiece match;
    if (!re.Match(re2::StringPiece(t), 0, t.size(), RE2::UNANCHORED, &match, 1))
      return std::string_view::npos;
    return static_cast<size_t>(match.data() - t.data());
  });
}
BENCHMARK(BM_PrefilterRe2Alternation)->Arg(0)->Arg(6);

void BM_PrefilterWhichLiterals(benchmark::State& state) {
  Prefilter prefilter(Rules().Literals());
  const std::string line = "Memstats: step 17: Using (GB) 3.30 / 30.75 (12.0%) on TPU_1(process=0,(1,0,0,0))";
  std::vector<size_t> present;
  for (auto _ : state) benchmark::DoNotOptimize(prefilter.Which(line, &present));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * line.size()));
}
BENCHMARK(BM_PrefilterWhichLiterals);

void BM_CleanGlogLine(benchmark::State& state) {
  LineCleaner cleaner;
  const std::string line =
      "E1130 12:00:00.123456  1234 tpu_runtime.cc:88] RESOURCE_EXHAUSTED: Error loading program";
  for (auto _ : state) benchmark::DoNotOptimize(cleaner.Clean(line).message.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * line.size()));
}
BENCHMARK(BM_CleanGlogLine);

void BM_CleanLineWithoutPrefix(benchmark::State& state) {
  LineCleaner cleaner;
  const std::string line = "Memstats: step 17: Using (GB) 3.30 / 30.75 (12.0%) on TPU_1(process=0,(1,0,0,0))";
  for (auto _ : state) benchmark::DoNotOptimize(cleaner.Clean(line).message.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * line.size()));
}
BENCHMARK(BM_CleanLineWithoutPrefix);

// One fact pattern with captures (the Memstats figure) on its line.
void BM_FactPattern(benchmark::State& state) {
  const Signature* memstats = nullptr;
  for (const auto& sig : RuleDataOf(Rules()).signatures)
    if (sig.id == "maxtext_memstats") memstats = &sig;
  if (!memstats) std::abort();
  const std::string line = "Memstats: step 17: Using (GB) 3.30 / 30.75 (12.0%) on TPU_1(process=0,(1,0,0,0))";
  size_t found = 0;
  for (auto _ : state) {
    MatchFacts(memstats->facts.front(), line, [&found](const FactGroup&, std::string_view) { ++found; });
  }
  benchmark::DoNotOptimize(found);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FactPattern);

// Signature matching: recognising messages (start, joining, facts) in a text of seeds.
void BM_SignatureMatching(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 64; ++i) text += kSeed;
  std::vector<Problem> problems;
  for (auto _ : state)
    benchmark::DoNotOptimize(RecognizeText(RuleDataOf(Rules()), text, false, &problems).size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.SetItemsProcessed(state.iterations() * 64);
}
BENCHMARK(BM_SignatureMatching);

// Whole scans: a log of memory figures only (the costliest common line), and noise.
void ScanBench(benchmark::State& state, const std::string& text, int64_t lines) {
  for (auto _ : state) {
    Scanner scanner(Rules(), ScanOptions{});
    scanner.ScanText(text, "bench.log");
    benchmark::DoNotOptimize(scanner.Finish().incidents.size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.SetItemsProcessed(state.iterations() * lines);
}

void BM_ScanMemoryFigures(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += "Memstats: step " + std::to_string(i) + ": Using (GB) 3." + std::to_string(i % 10) +
            "0 / 30.75 (11.0%) on TPU_" + std::to_string(i % 8) + "(process=0,(1,0,0,0))\n";
  ScanBench(state, text, 20000);
}
BENCHMARK(BM_ScanMemoryFigures);

void BM_ScanNoiseLog(benchmark::State& state) {
  const std::string& text = CachedNoise(6);
  ScanBench(state, text, static_cast<int64_t>(std::count(text.begin(), text.end(), '\n')));
}
BENCHMARK(BM_ScanNoiseLog);

// Rule evaluation: every cause rule against the seed's incident.
void BM_RuleEvaluation(benchmark::State& state) {
  Scanner scanner(Rules(), ScanOptions{});
  scanner.ScanText(kSeed, "seed.log");
  Report report = scanner.Finish();
  if (report.incidents.empty()) std::abort();
  Incident incident = report.incidents.front();
  for (auto _ : state) {
    Decide(RuleDataOf(Rules()), &incident);
    benchmark::DoNotOptimize(incident.diagnosis.best.cause.size());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RuleEvaluation);

}  // namespace
}  // namespace oomlens

BENCHMARK_MAIN();
