#include "oomlens/scanner.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "oomlens/render.h"
#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

const char kSeed[] =
    "XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program 'jit_embedding_pipeline_step_fn': "
    "Attempting to reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, "
    "0B reserved, and 147.64M reservable. Scope: unknown..: while running replica 0 and partition 34 of a "
    "replicated computation (other replicas may have failed as well).";

class ScannerTest : public ScanFixture {};

int64_t Bytes(const Incident& i, const std::string& name) {
  auto it = i.facts.find(name);
  return it == i.facts.end() ? -1 : it->second.integer;
}

// Two one-line OOMs one under the other in a plain log are two occurrences, in the
// paste restorer's window too (attack review W2: the second was joined to the first).
TEST_F(ScannerTest, AdjacentOneLineOomsAreNeverJoined) {
  const char* const kPairs[] = {
      "Resource exhausted: OOM when allocating tensor with shape[256,1024,1024] and type float on "
      "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n"
      "Resource exhausted: OOM when allocating tensor with shape[512,1024,1024] and type float on "
      "/job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc\n",
      "Dec 01 12:00:01 node7 kernel: Out of memory: Killed process 1001 (python) total-vm:49978204kB, "
      "anon-rss:12918388kB, file-rss:68668kB, shmem-rss:53352kB, UID:1000 pgtables:26312kB oom_score_adj:0\n"
      "Dec 01 12:00:02 node7 kernel: Out of memory: Killed process 1002 (python) total-vm:49978204kB, "
      "anon-rss:12918388kB, file-rss:68668kB, shmem-rss:53352kB, UID:1000 pgtables:26312kB oom_score_adj:0\n",
  };
  for (const char* text : kPairs) {
    Report r = Scan(text);
    uint64_t occurrences = 0;
    for (const auto& i : r.incidents) occurrences += i.occurrences;
    EXPECT_EQ(occurrences, 2u) << text;
  }
}

// text wrapped greedily at width, as textwrap and most chat boxes do.
std::vector<std::string> Wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string word, line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// A wrapped paste whose message starts at the restorer's block cap (physical line
// 256) is still read (attack review W3: the lines before the cap were sent without
// the rest, and a message whose start spans two lines, "Out of memory:" then
// "Killed process ...", was lost).
TEST_F(ScannerTest, AMessageWrappedAcrossTheBlockCapIsRead) {
  struct Case {
    std::string message, fact;
    size_t width;
    int64_t bytes;
  };
  const Case cases[] = {
      {"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity "
       "of "
       "15.78 GiB of which 3.12 MiB is free. Including non-PyTorch memory, this process has 15.77 GiB memory "
       "in "
       "use. Of the allocated memory 14.50 GiB is allocated by PyTorch, and 100.00 MiB is reserved by "
       "PyTorch "
       "but unallocated.",
       "requested_bytes", 60, 20 << 20},
      {"[12345.678901] Out of memory: Killed process 4242 (python3) total-vm:98765432kB, "
       "anon-rss:45678901kB, "
       "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:123456kB oom_score_adj:0",
       "anon_rss_bytes", 30, 45678901LL * 1024},
  };
  std::string filler;
  for (int i = 0; i < 900; ++i)
    filler += "the step " + std::to_string(i) + " ran fine and the loss went down a little ";
  for (const Case& c : cases) {
    std::vector<std::string> filler_lines = Wrap(filler, c.width), message_lines = Wrap(c.message, c.width);
    for (size_t before : {254u, 255u, 256u, 511u, 767u}) {
      std::string text;
      for (size_t i = 0; i < before; ++i) text += filler_lines[i] + "\n";
      for (const auto& line : message_lines) text += line + "\n";
      Report r = Scan(text);
      ASSERT_EQ(r.incidents.size(), 1u) << before << " filler lines at width " << c.width;
      EXPECT_EQ(Bytes(r.incidents[0], c.fact), c.bytes) << before << " filler lines at width " << c.width;
    }
  }
}

TEST_F(ScannerTest, SeedMessage) {
  Report r = Scan(kSeed);
  ASSERT_EQ(r.incidents.size(), 1u);
  const Incident& i = r.incidents[0];
  EXPECT_EQ(i.kind, "tpu_program_load");
  EXPECT_EQ(i.code, "E0101");
  EXPECT_EQ(i.facts.at("program").text, "jit_embedding_pipeline_step_fn");
  EXPECT_EQ(Bytes(i, "requested_bytes"), 31664646390);  // 29.49 * 2^30
  EXPECT_EQ(Bytes(i, "free_bytes"), 154811761);         // 147.64 * 2^20
  EXPECT_EQ(Bytes(i, "reserved_bytes"), 0);
  EXPECT_EQ(Bytes(i, "reservable_bytes"), 154811761);
  EXPECT_EQ(i.replicas, (std::set<int64_t>{0}));
  EXPECT_EQ(i.partitions, (std::set<int64_t>{34}));
  EXPECT_EQ(i.diagnosis.best.cause, "oversize");
  EXPECT_EQ(i.diagnosis.summary,
            "Program 'jit_embedding_pipeline_step_fn' needs 29.49G but only 147.64M of HBM is free: 29.35G "
            "short (204.5x what is free).");
  EXPECT_EQ(i.facts.count("largest_free_bytes"), 0u);  // never printed, so absent
  EXPECT_EQ(i.diagnosis.docs, (std::vector<std::string>{"https://openxla.org/xla/errors/error_0101"}));
}

TEST_F(ScannerTest, SparseCoreWordsTooManyForBytesAreAWarningNotAFact) {
  // E3000 sizes are 32-bit words: a count whose bytes overflow is dropped, the rest is read.
  Report r = Scan(
      "INTERNAL:Failed to run pass pipeline. Hlo-Op: result.1:2:1: error: 'memref.alloca' op current "
      "allocation offset upper bound (140704 words) exceeds the legitimate user allocatable offset upper "
      "bound "
      "(131071 words) in memory space 202 when allocating 9999999999999999999 words.\n");
  ASSERT_EQ(r.incidents.size(), 1u);
  const Incident& i = r.incidents[0];
  EXPECT_EQ(i.code, "E3000");
  EXPECT_EQ(Bytes(i, "limit_bytes"), 131071 * 4);
  EXPECT_EQ(i.facts.at("memory_space").text, "spmem");
  EXPECT_EQ(i.facts.count("requested_bytes"), 0u);
  bool warned = false;
  for (const auto& p : r.problems)
    warned = warned || p.message.find("ignored requested_bytes") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST_F(ScannerTest, ManyPartitionsAreOneIncident) {
  std::string log;
  for (int p = 0; p < 256; ++p) {
    std::string msg = kSeed;
    msg.replace(msg.find("partition 34"), 12, "partition " + std::to_string(p));
    if (p % 3 == 0) msg = "E1130 12:00:00.123456  1234 tpu.cc:12] " + msg;
    if (p % 5 == 0) msg.insert(msg.find("29.49G"), "\n");  // wrapped by the logger
    log += "I1130 12:00:00.000001  1234 train.py:1] step 41000 loss=2.1\n" + msg + "\n";
  }
  Report r = Scan(log);
  ASSERT_EQ(r.incidents.size(), 1u);
  EXPECT_EQ(r.incidents[0].occurrences, 256u);
  EXPECT_EQ(FormatIdSet(r.incidents[0].partitions), "0-255 (256)");
  EXPECT_TRUE(r.incidents[0].outliers.empty());
}

TEST_F(ScannerTest, DifferentProgramsOrSizesAreDifferentIncidents) {
  std::string a = kSeed, b = kSeed, c = kSeed;
  b.replace(b.find("jit_embedding"), 13, "jit_other_fn_");
  c.replace(c.find("29.49G"), 6, "12.00G");
  Report r = Scan(a + "\n" + b + "\n" + c + "\n" + a + "\n");
  ASSERT_EQ(r.incidents.size(), 3u);
  EXPECT_EQ(r.incidents[0].occurrences, 2u);
  EXPECT_EQ(r.incidents[0].first.line, 1u);
  EXPECT_EQ(r.incidents[1].first.line, 2u);
}

TEST_F(ScannerTest, OutliersRecordDifferingNumbers) {
  std::string other = kSeed;
  other.replace(other.find("147.64M free"), 7, "1.20G");
  other.replace(other.find("partition 34"), 12, "partition 7");
  Report r = Scan(std::string(kSeed) + "\n" + other + "\n");
  ASSERT_EQ(r.incidents.size(), 1u);
  ASSERT_EQ(r.incidents[0].outliers.size(), 1u);
  EXPECT_EQ(r.incidents[0].outliers[0].who, "replica 0, partition 7");
  EXPECT_EQ(r.incidents[0].outliers[0].differences[0], "free_bytes 1.20G (first: 147.64M)");
}

TEST_F(ScannerTest, FragmentationIsToldFromOversize) {
  Report r = Scan(
      "RESOURCE_EXHAUSTED: Attempting to reserve 6.48G at the bottom of memory. That was not possible. "
      "There are 6.78G free, 0B reserved, and 3.33G reservable.");
  ASSERT_EQ(r.incidents.size(), 1u);
  EXPECT_EQ(r.incidents[0].diagnosis.best.cause, "fragmentation");
  EXPECT_NEAR(r.incidents[0].derived.at("fragmentation_ratio").number, (6.78 - 3.33) / 6.78, 1e-3);
}

TEST_F(ScannerTest, TieIsNotProofOfAnything) {
  Report r = Scan(
      "RESOURCE_EXHAUSTED: Error loading program 'p': Attempting to allocate 1.54G. That was not possible. "
      "There are 1.54G free.");
  ASSERT_EQ(r.incidents.size(), 1u);
  EXPECT_EQ(r.incidents[0].diagnosis.best.cause, "unknown");
}

TEST_F(ScannerTest, ChipGivesCapacityAndSharpensTheSummary) {
  std::string msg = kSeed;
  Report r = Scan(msg, "v5e");
  ASSERT_EQ(r.incidents.size(), 1u);
  EXPECT_EQ(Bytes(r.incidents[0], "capacity_bytes"), 16LL << 30);
  EXPECT_EQ(r.incidents[0].diagnosis.summary,
            "The program needs 29.49G, more than the device's whole memory (16.00G): it can never fit on one "
            "device.");
}

TEST_F(ScannerTest, UnreadableInputsAreProblemsNotCrashes) {
  Scanner scanner(rules_, {});
  EXPECT_FALSE(scanner.ScanFile("/nonexistent/oomlens.log"));
  EXPECT_FALSE(scanner.ScanFile("/"));
  scanner.ScanText(kSeed, "paste");
  Report r = scanner.Finish();
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(FormatProblem(r.problems[0]),
            "/nonexistent/oomlens.log: No such file or directory (help: check the path)");
  EXPECT_EQ(
      FormatProblem(r.problems[1]),
      "/: is a directory (help: give the log files inside it (e.g. //*.log), or -r to read it recursively)");
  EXPECT_EQ(r.incidents.size(), 1u);  // the other input is still reported
}

TEST_F(ScannerTest, BinaryJunkAndGiantLinesAreSurvived) {
  std::string junk;
  for (int i = 0; i < 100000; ++i) junk += static_cast<char>((i * 7919) % 256);
  std::string giant(5 * 1024 * 1024, 'x');
  Report r = Scan(junk + "\n" + giant + kSeed + "\n" + kSeed + "\n");
  ASSERT_EQ(r.incidents.size(), 1u);  // the message after the giant line is still found
  EXPECT_EQ(r.incidents[0].occurrences, 1u);
  bool warned = false;
  for (const auto& p : r.problems)
    warned = warned || p.message.find("longer than 4.00M") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST_F(ScannerTest, CompileReportCarriesEveryAllocationWithPadding) {
  Scanner scanner(rules_, {});
  ASSERT_TRUE(scanner.ScanFile(std::string(OOMLENS_SOURCE_DIR) +
                               "/testdata/logs/tpu_compile/e1000_tpuestimator_20_allocations.log"));
  Report r = scanner.Finish();
  ASSERT_EQ(r.incidents.size(), 1u);
  const Incident& i = r.incidents[0];
  EXPECT_EQ(i.kind, "tpu_compile_hbm");
  ASSERT_EQ(i.allocations.size(), 20u);
  const Facts& first = i.allocations[0].fields;
  EXPECT_EQ(first.at("size_bytes").integer, 512LL << 20);
  EXPECT_EQ(first.at("unpadded_bytes").text, "40.50M");
  EXPECT_EQ(first.at("padding_bytes").text, "471.50M");
  EXPECT_DOUBLE_EQ(first.at("expansion").number, 12.6);
  EXPECT_EQ(first.at("op_type").text, "OneHot");
  EXPECT_EQ(first.at("type").text, "HLO temp");
  EXPECT_EQ(i.allocations[19].fields.at("rank").integer, 20);
  EXPECT_EQ(i.derived.at("largest_allocation_bytes").integer, 512LL << 20);
  EXPECT_NEAR(i.derived.at("largest_allocation_ratio").number, 0.03125, 1e-9);
  EXPECT_EQ(i.diagnosis.best.cause, "aggregate_usage");
}

TEST_F(ScannerTest, OneDominantAllocationIsNotACapacityProblem) {
  Report r = Scan(
      "Compilation failure: Ran out of memory in memory space hbm. Used 41.74G of 16.00G hbm. Exceeded hbm "
      "capacity by 25.74G.\n\n  Largest program allocations in hbm:\n\n  1. Size: 12.00G\n"
      "     Operator: op_type=\"Dot\" op_name=\"model/scores\" source_file=\"/app/model.py\" source_line=88\n"
      "     Shape: f32[32,8192,12288]{2,1,0:T(8,128)}\n     Allocation type: HLO temp\n");
  ASSERT_EQ(r.incidents.size(), 1u);
  const Incident& i = r.incidents[0];
  EXPECT_EQ(i.diagnosis.best.cause, "unexpectedly_large_allocation");
  EXPECT_EQ(
      i.diagnosis.summary,
      "One allocation dominates: 12.00G (75% of the 16.00G limit) for f32[32,8192,12288]{2,1,0:T(8,128)} "
      "from model/scores at /app/model.py:88. That points to missing sharding or a debugging artifact, not "
      "to capacity.");
  ASSERT_EQ(i.diagnosis.alternatives.size(), 1u);
  EXPECT_EQ(i.diagnosis.alternatives[0].cause, "aggregate_usage");
}

TEST_F(ScannerTest, ConsequencesPointAtTheirRoot) {
  Report r = Scan(
      "W bfc_allocator.cc:273] Allocator (GPU_0_bfc) ran out of memory trying to allocate 74.16MiB.  Current "
      "allocation summary follows.\n"
      "I bfc_allocator.cc:683] Sum Total of in-use chunks: 198.75MiB\n"
      "W op_kernel.cc:1192] Resource exhausted: OOM when allocating tensor with shape[128,225,225,3]\n"
      "later, unrelated: Out of memory: Killed process 77 (python) total-vm:100kB, anon-rss:90kB\n");
  ASSERT_EQ(r.incidents.size(), 3u);
  EXPECT_EQ(r.incidents[0].kind, "bfc_allocator");
  EXPECT_EQ(r.incidents[0].consequence_of, 0u);
  EXPECT_EQ(r.incidents[1].kind, "tf_oom_tensor");
  EXPECT_EQ(r.incidents[1].consequence_of, 1u);
  EXPECT_EQ(r.incidents[1].relation, "the same allocation failure, reported by TensorFlow");
  EXPECT_EQ(r.incidents[2].consequence_of, 0u);  // a host kill is no consequence of a GPU OOM
}

TEST_F(ScannerTest, OneFailureReportedTwicePoolsItsFacts) {
  // The BFC dump shows the allocator (limit, in use); TensorFlow's error after it
  // shows only the tensor. Each report gets the figures only the other printed, so
  // both are decided on all of them, and agree.
  Report r = Scan(
      "W bfc_allocator.cc:273] Allocator (GPU_0_bfc) ran out of memory trying to allocate 512.00MiB.  "
      "Current "
      "allocation summary follows.\n"
      "I bfc_allocator.cc:683] Sum Total of in-use chunks: 874.79MiB\n"
      "I bfc_allocator.cc:684] total_region_allocated_bytes_: 1148427008 memory_limit_: 1843986432 available "
      "bytes: 695559424 curr_region_allocation_bytes_: 2147483648\n"
      "I bfc_allocator.cc:685] Stats:\n"
      "Limit:                  1846018048\n"
      "InUse:                   917282560\n"
      "MaxInUse:                917282560\n"
      "W op_kernel.cc:1753] OP_REQUIRES failed at transpose_op.cc:198 : Resource exhausted: OOM when "
      "allocating "
      "tensor with shape[4,2048,128,128] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by "
      "allocator GPU_0_bfc\n");
  ASSERT_EQ(r.incidents.size(), 2u);
  const Incident& root = r.incidents[0];
  const Incident& later = r.incidents[1];
  ASSERT_EQ(later.consequence_of, 1u);
  ASSERT_NE(root.diagnosis.best.cause, "unknown");
  EXPECT_EQ(later.diagnosis.best.cause, root.diagnosis.best.cause);
  EXPECT_EQ(later.diagnosis.summary, root.diagnosis.summary);
  EXPECT_EQ(later.facts.count("limit_bytes"), 1u);  // the allocator's figures reach the tensor's report
  EXPECT_EQ(later.facts.at("in_use_bytes").integer, 917282560);
  EXPECT_EQ(root.facts.count("shape"), 1u);  // and the tensor's shape the allocator's
  EXPECT_EQ(later.facts.at("requested_bytes").integer, root.facts.at("requested_bytes").integer);
}

TEST_F(ScannerTest, ABareRootIsDecidedOnTheFiguresItsConsequencePrinted) {
  // TF 0.8 prints the allocator's stats first, then a bare "Ran out of memory" line,
  // then the tensor error: the figures that decide it sit with the later report,
  // and reach the root, which a reader sees first (gpu2/010's shape).
  Report r = Scan(
      "I bfc_allocator.cc:693] Stats:\n"
      "Limit:                  1489832346\n"
      "InUse:                  1477023232\n"
      "MaxInUse:               1477423360\n"
      "W bfc_allocator.cc:271] Ran out of memory trying to allocate 29.91MiB.  See logs for memory state.\n"
      "W op_kernel.cc:900] Resource exhausted: OOM when allocating tensor with shape[10000,1,28,28]\n");
  ASSERT_EQ(r.incidents.size(), 2u);
  const Incident& root = r.incidents[0];
  const Incident& later = r.incidents[1];
  ASSERT_EQ(later.consequence_of, 1u);
  EXPECT_EQ(later.diagnosis.best.rule, "bfc.full");
  EXPECT_EQ(root.diagnosis.best.rule, "bfc.full");
  EXPECT_EQ(root.diagnosis.summary, later.diagnosis.summary);
  EXPECT_NE(root.diagnosis.advice.front().find("evaluate in smaller batches"), std::string::npos);
}

TEST_F(ScannerTest, TensorSizeIsDerivedFromShapeAndDtype) {
  Report r = Scan(
      "Resource exhausted: OOM when allocating tensor with shape[16,112,112,147] and type float on "
      "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n");
  ASSERT_EQ(r.incidents.size(), 1u);
  EXPECT_EQ(r.incidents[0].derived.at("tensor_bytes").integer, 16LL * 112 * 112 * 147 * 4);
  // A tensor of 118 MB failing with no allocator numbers: the device was already full
  // (docs/causes.md, the conventions), said with modest confidence.
  EXPECT_EQ(r.incidents[0].diagnosis.best.cause, "aggregate_usage");
  EXPECT_LE(r.incidents[0].diagnosis.best.confidence, 0.5);
}

TEST_F(ScannerTest, PytorchCausesFollowTheNumbers) {
  struct Case {
    const char* message;
    const char* cause;
  } cases[] = {
      {"CUDA out of memory. Tried to allocate 1.65 GiB (GPU 1; 7.79 GiB total capacity; 3.53 GiB already "
       "allocated; 1.40 GiB free; 5.28 GiB reserved in total by PyTorch)",
       "fragmentation"},
      {"CUDA out of memory. Tried to allocate 74.00 MiB (GPU 0; 11.91 GiB total capacity; 10.79 GiB already "
       "allocated; 12.94 MiB free; 11.21 GiB reserved in total by PyTorch)",
       "aggregate_usage"},
      {"CUDA out of memory. Tried to allocate 10.73 GiB (GPU 0; 8.00 GiB total capacity; 17.20 GiB already "
       "allocated; 0 bytes free; 19.15 GiB reserved in total by PyTorch)",
       "oversize"},
      {"CUDA out of memory. Tried to allocate 90.00 MiB. GPU 0 has a total capacity of 23.52 GiB of which "
       "32.06 MiB is free. Process 323138 has 2.16 GiB memory in use. Process 2514068 has 21.30 GiB memory "
       "in "
       "use. Of the allocated memory 1.52 GiB is allocated by PyTorch, and 85.39 MiB is reserved by PyTorch "
       "but unallocated.",
       "other_process"},
  };
  for (const auto& c : cases) {
    Report r = Scan(c.message);
    ASSERT_EQ(r.incidents.size(), 1u) << c.message;
    EXPECT_EQ(r.incidents[0].diagnosis.best.cause, c.cause) << c.message;
  }
}

// Figures computed by hand from the dump's "Free at" / "Chunk at" lines.
TEST_F(ScannerTest, CompleteBfcDumpFiguresMatchAHandCount) {
  Scanner scanner(rules_, {});
  ASSERT_TRUE(scanner.ScanFile(std::string(OOMLENS_SOURCE_DIR) +
                               "/testdata/logs/gpu/bfc_dump_tf1_other_process.log"));
  Report r = scanner.Finish();
  ASSERT_EQ(r.incidents.size(), 2u);
  const Incident& bfc = r.incidents[0];
  ASSERT_EQ(bfc.kind, "bfc_allocator");
  EXPECT_EQ(bfc.facts.at("free_chunks_bytes").integer, 69648384 + 1228800 + 2654208 + 3538944);
  EXPECT_EQ(bfc.facts.at("largest_free_bytes").integer, 69648384);
  EXPECT_EQ(bfc.facts.at("free_chunk_count").integer, 4);
  EXPECT_EQ(bfc.facts.at("in_use_chunk_count").integer, 20);
  EXPECT_EQ(bfc.facts.at("limit_bytes").integer, 285474816);
  EXPECT_EQ(bfc.facts.at("in_use_bytes").integer, 208404480);
  EXPECT_EQ(bfc.derived.at("allocator_free_bytes").integer, 285474816 - 208404480);  // = the free chunks
  EXPECT_NEAR(bfc.derived.at("fragmentation_ratio").number, (77070336.0 - 69648384.0) / 77070336.0, 1e-6);
  EXPECT_EQ(bfc.facts.at("device_free_at_start_bytes").text, "497.25MiB");  // from the device line before it
  EXPECT_EQ(bfc.diagnosis.best.cause, "other_process");
}

TEST_F(ScannerTest, BfcNotAFailureWarningIsNoIncident) {
  Report r = Scan(
      "W bfc_allocator.cc:306] Allocator (GPU_0_bfc) ran out of memory trying to allocate 25.15GiB with "
      "freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could "
      "be performance gains if more memory were available.\n");
  EXPECT_TRUE(r.incidents.empty());
  EXPECT_TRUE(r.problems.empty());
}

TEST_F(ScannerTest, JsonIsValidUtf8WhateverTheInput) {
  std::string msg = kSeed;
  msg.replace(msg.find("jit_embedding"), 3, "\xff\xfe\xc3");
  Report r = Scan(msg);
  std::ostringstream out;
  RenderJson(r, out);
  EXPECT_NE(out.str().find("\xef\xbf\xbd"), std::string::npos);  // U+FFFD replaces the bad bytes
  EXPECT_EQ(out.str().find("\xff"), std::string::npos);
}

}  // namespace
}  // namespace oomlens
