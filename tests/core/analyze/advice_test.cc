// Advice ranked by the incident's own figures: the mechanism (rank, basis,
// why_not) and, on real logs whose reports record what fixed them, whether the
// first tip points at that fix (testdata/advice/known_fixes.json).
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "oomlens/render.h"
#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

const char kRankedRule[] = R"json({
  "version": 1,
  "causes": [{
    "id": "test.ranked", "cause": "oversize", "kinds": ["tpu_program_load"], "when": "requested_bytes > free_bytes",
    "confidence": 0.99, "summary": ["s"],
    "advice": [
      {"text": "plain, rank 0"},
      {"text": "shard over {ceil(requested_bytes / free_bytes):int} devices",
       "rank": "requested_bytes / free_bytes", "basis": "asked / free"},
      {"when": "requested_bytes < 2 * free_bytes", "text": "smaller batch", "rank": "100",
       "why_not": "it asks {requested_bytes / free_bytes:ratio} what is free"},
      {"when": "requested_bytes < 2 * free_bytes", "text": "dropped without a why_not"},
      {"text": "rank 1, after the shard tip", "rank": "1"}
    ],
    "fit": [{"when": "requested_bytes < free_bytes", "text": "never"},
            "{ceil(requested_bytes / free_bytes):int} devices (if it divides evenly)", "not reached"]
  }]
})json";

const char kLoad[] =
    "RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve 10.00G at the bottom of "
    "memory. That was not possible. There are 4.00G free, 0B reserved, and 4.00G reservable.\n";

// A TPU E0100 buffer allocation failure asking for requested with free free.
std::string BufferOom(const std::string& requested, const std::string& free) {
  return "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate " + requested +
         ". That was not possible. There are " + free + " free.";
}

class AdviceTest : public ScanFixture {};

TEST_F(AdviceTest, RankBasisAndWhyNotPlaceEachTip) {
  std::vector<Problem> problems;
  ASSERT_TRUE(rules_.LoadText("ranked.json", kRankedRule, &problems))
      << (problems.empty() ? "" : problems[0].message);
  Report report = Scan(kLoad);
  ASSERT_EQ(report.incidents.size(), 1u);
  const Diagnosis& d = report.incidents[0].diagnosis;
  ASSERT_EQ(d.best.rule, "test.ranked");
  EXPECT_EQ(d.advice, (std::vector<std::string>{"shard over 3 devices (asked / free)",
                                                "rank 1, after the shard tip", "plain, rank 0"}));
  EXPECT_EQ(d.fit, "3 devices (if it divides evenly)");
  ASSERT_EQ(d.also_consider.size(), 1u);
  EXPECT_EQ(d.also_consider[0].advice, "smaller batch");
  EXPECT_EQ(d.also_consider[0].why, "it asks 2.50x what is free");
  std::ostringstream json;
  RenderJson(report, json);
  EXPECT_NE(json.str().find(R"("also_consider": [)"), std::string::npos);
  EXPECT_NE(json.str().find(R"x("fit": "3 devices (if it divides evenly)")x"), std::string::npos);
}

TEST_F(AdviceTest, ARankThatIsNotANumberIsARuleError) {
  std::string bad = kRankedRule;
  bad.replace(bad.find(R"("rank": "1")"), 11, R"("rank": "requested_bytes")");  // line 13
  std::vector<Problem> problems;
  EXPECT_FALSE(rules_.LoadText("bad.json", bad, &problems));
  ASSERT_FALSE(problems.empty());
  std::string said = FormatProblem(problems[0]);
  EXPECT_NE(said.find("bad.json:13:"), std::string::npos) << said;
  EXPECT_NE(said.find("/causes/0/advice/4/rank: 'requested_bytes' is not a number"), std::string::npos)
      << said;
}

// A listing of the compiler's largest allocations with one entry of shape.
std::string PaddedListing(const std::string& shape) {
  return "Compilation failure: Ran out of memory in memory space hbm. Used 41.74G of 16.00G hbm. Exceeded "
         "hbm "
         "capacity by 25.74G.\n"
         "  Largest program allocations in hbm:\n"
         "  1. Size: 32.00G\n"
         "     Shape: " +
         shape +
         "\n"
         "     Unpadded size: 1.00G\n"
         "     Extra memory due to padding: 31.00G (32.0x expansion)\n";
}

TEST_F(AdviceTest, ThePaddingTipNamesTheDimensionTheTilePads) {
  auto first_tip = [this](const std::string& shape) {
    Report report = Scan(PaddedListing(shape));
    return report.incidents.empty() || report.incidents[0].diagnosis.advice.empty()
               ? std::string()
               : report.incidents[0].diagnosis.advice[0];
  };
  EXPECT_NE(first_tip("s32[8388608,8,4]{2,1,0:T(8,128)}")
                .find("the minor dimension is 4, which the TPU tile pads "
                      "to 128 (32.0x its size)"),
            std::string::npos);
  // Layout {0,1}: dimension 0 (size 4) is minor; dimension 1 (1048576) is the one to make minor.
  std::string transposed = first_tip("f32[4,1048576]{0,1:T(8,128)}");
  EXPECT_NE(transposed.find("the minor dimension is 4, which the TPU tile pads to 128"), std::string::npos)
      << transposed;
  EXPECT_NE(transposed.find("so the 1048576 dimension is minor"), std::string::npos) << transposed;
  std::string second = first_tip("bf16[1048576,2,128]{2,1,0:T(16,128)}");  // 2 rows padded to 16
  EXPECT_NE(second.find("the second-minor dimension is 2, which the TPU tile pads to 16 (8.00x its size)"),
            std::string::npos)
      << second;
  for (const char* broken :
       {"f32[4,8]{0,1,2:T(8,128)}", "f32[4,8]{9,0:T(8,128)}", "f32[4,x]{1,0:T(8,128)}",
        "f32[4,8]{1,0:T(0,128)}", "f32[4,8]", "f32[99999999999999999999,8]{1,0:T(8,128)}"}) {
    std::string tip = first_tip(broken);  // a shape it cannot read: the general layout tip, never a crash
    EXPECT_EQ(tip.find("which the TPU tile pads"), std::string::npos) << broken << ": " << tip;
  }
}

// vLLM's message with the model's max sequence length and what the KV cache holds.
std::string KvCacheTooShort(int max_seq_len, int kv_tokens) {
  return "ValueError: The model's max seq len (" + std::to_string(max_seq_len) +
         ") is larger than the maximum number of tokens that can be stored in KV cache (" +
         std::to_string(kv_tokens) +
         "). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the "
         "engine.\n";
}

TEST_F(AdviceTest, TheSameCauseRanksItsTipsByTheIncidentsFigures) {
  // 5% short: shorten the context first, a larger memory share would also do.
  Report near = Scan(KvCacheTooShort(20480, 19456));
  ASSERT_EQ(near.incidents.size(), 1u);
  const Diagnosis& a = near.incidents[0].diagnosis;
  ASSERT_GE(a.advice.size(), 3u);
  EXPECT_NE(a.advice[0].find("max_model_len (vLLM) or --context-length (SGLang) to 19456 tokens"),
            std::string::npos)
      << a.advice[0];
  EXPECT_NE(a.advice[1].find("raise gpu_memory_utilization"), std::string::npos) << a.advice[1];
  EXPECT_NE(a.fit.find("max_model_len of at most 19456 tokens"), std::string::npos) << a.fit;
  // 3.4x short: no share of the same GPU holds that; spreading the cache comes first.
  Report far = Scan(KvCacheTooShort(65536, 19456));
  ASSERT_EQ(far.incidents.size(), 1u);
  const Diagnosis& b = far.incidents[0].diagnosis;
  ASSERT_FALSE(b.advice.empty());
  EXPECT_NE(b.advice[0].find("tensor parallelism over 4x the GPUs"), std::string::npos) << b.advice[0];
  ASSERT_EQ(b.also_consider.size(), 1u);
  EXPECT_NE(b.also_consider[0].advice.find("gpu_memory_utilization"), std::string::npos);
  EXPECT_EQ(b.also_consider[0].why,
            "the KV cache would need 3.37x its size: a larger share of the same GPU cannot give that");
}

// Every built-in tip has a rank, and every one that computes a figure says what it rests on.
TEST_F(AdviceTest, EveryBuiltInTipIsRankedAndStatesItsBasis) {
  const std::string dir = std::string(OOMLENS_SOURCE_DIR) + "/rules/causes/";
  size_t tips = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string file = entry.path().filename().string();
    std::ifstream in(entry.path());
    ASSERT_TRUE(in) << file;
    nlohmann::json rules = nlohmann::json::parse(in);
    for (const auto& rule : rules["causes"]) {
      for (const auto& tip : rule.value("advice", nlohmann::json::array())) {
        EXPECT_TRUE(tip.is_object() && tip.contains("rank"))
            << file << ": " << rule["id"] << ": " << tip.dump();
        ++tips;
      }
    }
  }
  EXPECT_GT(tips, 150u);
  std::vector<Problem> problems;
  EXPECT_TRUE(rules_.CheckSamples(&problems));
  for (const auto& p : problems) ADD_FAILURE() << FormatProblem(p);
}

TEST_F(AdviceTest, ATipThatComputesWithoutABasisIsWarnedAbout) {
  std::string rule = kRankedRule;
  size_t basis = rule.find(R"(, "basis": "asked / free")");
  rule.erase(basis, std::string(R"(, "basis": "asked / free")").size());
  std::vector<Problem> problems;
  RuleSet rules;
  ASSERT_TRUE(rules.LoadText("nobasis.json", rule, &problems));
  rules.CheckSamples(&problems);
  bool warned = false;
  for (const auto& p : problems) {
    warned =
        warned || (p.severity == Problem::Severity::kWarning &&
                   FormatProblem(p).find("'test.ranked': advice 2 computes a figure but does not say what it "
                                         "rests on") != std::string::npos);
  }
  EXPECT_TRUE(warned);
}

// The root incident: the first that follows from no other.
const Incident* Root(const Report& report) {
  for (const auto& incident : report.incidents)
    if (incident.consequence_of == 0) return &incident;
  return report.incidents.empty() ? nullptr : &report.incidents[0];
}

// Attack review W9: PyTorch's common "of which 0 bytes is free" leaves no room for a
// smaller tensor; the tip that would shrink it to 0% of its size is listed under
// "also consider" with why, and no "would fit" line offers a 0% batch.
TEST_F(AdviceTest, ATipWhoseTargetIsZeroGoesUnderAlsoConsiderWithWhy) {
  Report report = Scan(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of "
      "15.78 GiB of which 0 bytes is free. Including non-PyTorch memory, this process has 15.78 GiB memory "
      "in use. "
      "Of the allocated memory 14.00 GiB is allocated by PyTorch, and 0 bytes is reserved by PyTorch but "
      "unallocated.\n");
  ASSERT_EQ(report.incidents.size(), 1u);
  const Diagnosis& d = report.incidents[0].diagnosis;
  ASSERT_FALSE(d.advice.empty());
  for (const auto& tip : d.advice) EXPECT_EQ(tip.find(" 0% "), std::string::npos) << tip;
  EXPECT_EQ(d.fit.find(" 0% "), std::string::npos) << d.fit;
  bool moved = false;
  for (const auto& c : d.also_consider) moved = moved || c.why.find("no room") != std::string::npos;
  EXPECT_TRUE(moved) << "the 0% tip is neither dropped silently nor advised";
}

// Attack review W8: a request below the free memory that still failed is
// fragmentation, inferred at lower confidence when no largest block is printed, and
// the advice does not ask for the "There are N free" sentence the log holds.
TEST_F(AdviceTest, ARequestThatFitsInFreeMemoryIsInferredFragmentation) {
  Report report = Scan(BufferOom("1.00G", "6.43G") + "; (0x0x1_HBM0)\n");
  ASSERT_EQ(report.incidents.size(), 1u);
  const Diagnosis& d = report.incidents[0].diagnosis;
  EXPECT_EQ(d.best.cause, "fragmentation");
  EXPECT_EQ(d.best.rule, "general.fits_free");
  EXPECT_LT(d.best.confidence, 0.8);
  for (const auto& tip : d.advice) EXPECT_EQ(tip.find("There are N free"), std::string::npos) << tip;
}

// Attack review W10: a difference of absurd figures (7E asked, -7E free) is beyond
// int64: it is not derived (no wrapped "-2.00E" or saturated "8.00E" shortfall).
TEST_F(AdviceTest, ADifferenceBeyondSixtyFourBitsIsNotDerived) {
  Report report = Scan(BufferOom("7.00E", "-7.00E") + "\n");
  ASSERT_EQ(report.incidents.size(), 1u);
  const Incident& incident = report.incidents[0];
  EXPECT_EQ(incident.derived.count("shortfall_bytes"), 0u);
  std::ostringstream text;
  RenderText(report, RenderOptions{}, text);
  EXPECT_EQ(text.str().find("8.00E short"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("-2.00E"), std::string::npos) << text.str();
}

TEST_F(AdviceTest, TheFirstTipPointsAtTheFixThatWorkedOnRealLogs) {
  const std::string dir = std::string(OOMLENS_SOURCE_DIR) + "/testdata/advice/";
  std::ifstream in(dir + "known_fixes.json");
  nlohmann::json known = nlohmann::json::parse(in);
  size_t agree = 0, total = 0;
  for (const auto& log : known["logs"]) {
    std::string file = log["file"];
    Scanner scanner(rules_, {});
    ASSERT_TRUE(scanner.ScanFile(dir + file)) << file;
    Report report = scanner.Finish();
    const Incident* root = Root(report);
    ASSERT_NE(root, nullptr) << file;
    ASSERT_FALSE(root->diagnosis.advice.empty()) << file;
    RE2 fix(log["top_tip"].get<std::string>());
    bool first = RE2::PartialMatch(root->diagnosis.advice.front(), fix);
    EXPECT_EQ(first, log["agrees"].get<bool>())
        << file << ": the first tip is now '" << root->diagnosis.advice.front()
        << "'; the fix was: " << log["fix"]
        << " (update testdata/advice/known_fixes.json if the tip moved for the better)";
    bool anywhere = false;
    for (const auto& tip : root->diagnosis.advice) anywhere = anywhere || RE2::PartialMatch(tip, fix);
    EXPECT_TRUE(anywhere) << file << ": no tip points at the fix that worked (" << log["fix"] << ")";
    agree += first;
    ++total;
  }
  std::printf("first tip agrees with the recorded fix on %zu of %zu real logs\n", agree, total);
  EXPECT_GE(total, 15u);
}

}  // namespace
}  // namespace oomlens
