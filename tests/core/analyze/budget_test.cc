// Where the memory went: the budget a log printed before an incident (a serving
// engine's start-up ledger, a compiled program's memory stats) is attached to it,
// figure by figure, each with the line that printed it, and "would fit" computes
// from those figures only.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/render/verdict.h"
#include "oomlens/render.h"
#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

const char kLedger[] =
    "INFO 03-21 20:15:45 [worker.py:267] the current vLLM instance can use total_gpu_memory (79.19GiB) x "
    "gpu_memory_utilization (0.90) = 71.27GiB\n"
    "INFO 03-21 20:15:45 [worker.py:267] model weights take 12.55GiB; non_torch_memory takes 0.16GiB; "
    "PyTorch "
    "activation peak memory takes 2.38GiB; the rest of the memory reserved for KV Cache is 56.18GiB.\n";
const char kTooLong[] =
    "The model's max seq len (120000) is larger than the maximum number of tokens that can be stored in KV "
    "cache (115072). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing "
    "the engine.\n";

const BudgetEntry* Find(const Incident& incident, const std::string& name) {
  auto it = std::find_if(incident.budget.begin(), incident.budget.end(),
                         [&name](const BudgetEntry& b) { return b.name == name; });
  return it == incident.budget.end() ? nullptr : &*it;
}

class BudgetTest : public ScanFixture {};

TEST_F(BudgetTest, TheLedgerBeforeAnIncidentIsItsBudgetLineByLine) {
  Report report = Scan(std::string(kLedger) + kTooLong);
  ASSERT_EQ(report.incidents.size(), 1u);
  const Incident& incident = report.incidents[0];
  ASSERT_EQ(incident.budget.size(), 7u);
  EXPECT_EQ(incident.budget[0].name, "capacity_bytes") << "in the order printed";
  const BudgetEntry* kv = Find(incident, "kv_cache_bytes");
  ASSERT_NE(kv, nullptr);
  EXPECT_EQ(kv->value.integer, static_cast<int64_t>(56.18 * (1LL << 30)));
  EXPECT_EQ(kv->source.line, 2u);
  EXPECT_EQ(Find(incident, "usable_bytes")->source.line, 1u);
  EXPECT_DOUBLE_EQ(Find(incident, "gpu_memory_utilization")->value.number, 0.9);
  EXPECT_EQ(incident.phase.Name(), "kv_cache");
}

TEST_F(BudgetTest, WouldFitComesFromTheLogsOwnFigures) {
  Report report = Scan(std::string(kLedger) + kTooLong);
  ASSERT_EQ(report.incidents.size(), 1u);
  // 56.18G holds 115072 tokens; 120000 need 4928 more at that rate: 2.41G of a
  // 79.19G card, 0.0304 more than 0.90, rounded up.
  EXPECT_NE(report.incidents[0].diagnosis.fit.find("gpu_memory_utilization 0.94 for the configured 120000"),
            std::string::npos)
      << report.incidents[0].diagnosis.fit;
}

TEST_F(BudgetTest, AFigurePrintedAgainCountsAtItsLaterLineAndLaterFiguresNotAtAll) {
  std::string restart =
      std::string(kLedger) + "INFO restarting the engine\n" +
      "INFO 03-21 20:19:00 [worker.py:267] model weights take 14.99GiB; non_torch_memory takes "
      "0.16GiB; PyTorch activation peak memory takes 2.38GiB; the rest of the memory reserved "
      "for KV Cache is 53.74GiB.\n" +
      kTooLong +
      "INFO 03-21 20:20:00 [worker.py:267] model weights take 1.00GiB; non_torch_memory takes "
      "0.16GiB; PyTorch activation peak memory takes 2.38GiB; the rest of the memory reserved "
      "for KV Cache is 66.00GiB.\n";
  Report report = Scan(restart);
  ASSERT_EQ(report.incidents.size(), 1u);
  const BudgetEntry* weights = Find(report.incidents[0], "weights_bytes");
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->source.line, 4u);
  EXPECT_EQ(weights->value.text, "14.99GiB");
}

TEST_F(BudgetTest, TheBudgetGoesThroughJsonAndBack) {
  Report report = Scan(std::string(kLedger) + kTooLong);
  Report back = ThroughJson(report);
  ASSERT_EQ(back.incidents.size(), 1u);
  ASSERT_EQ(back.incidents[0].budget.size(), report.incidents[0].budget.size());
  for (size_t k = 0; k < back.incidents[0].budget.size(); ++k) {
    const BudgetEntry &a = report.incidents[0].budget[k], &b = back.incidents[0].budget[k];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.value.integer, b.value.integer);
    EXPECT_EQ(a.source.line, b.source.line);
  }
}

// CI formats carry the budget too: SARIF as a property (the JSON's entries), GitLab
// in the body beside the phase, GitHub in the annotation.
TEST_F(BudgetTest, CiFormatsCarryTheBudget) {
  Report report = Scan(std::string(kLedger) + kTooLong);
  FailGate gate;
  std::ostringstream sarif, gitlab, github;
  RenderSarif(report, gate, sarif);
  RenderGitlab(report, gate, gitlab);
  RenderGithub(report, gate, github);
  auto budget = nlohmann::json::parse(sarif.str())["runs"][0]["results"][0]["properties"]["budget"];
  ASSERT_EQ(budget.size(), 7u);
  EXPECT_EQ(budget[6]["name"], "kv_cache_bytes");
  EXPECT_EQ(budget[6]["bytes"], static_cast<int64_t>(56.18 * (1LL << 30)));
  EXPECT_EQ(budget[6]["source"]["line"], 2);
  std::string body = nlohmann::json::parse(gitlab.str())[0]["content"]["body"];
  EXPECT_NE(body.find("Phase: kv_cache"), std::string::npos) << body;
  EXPECT_NE(body.find("Budget: capacity 79.19G"), std::string::npos) << body;
  EXPECT_NE(github.str().find("%0ABudget: capacity 79.19G"), std::string::npos) << github.str();
}

// A run that did not fail has its budget too (--headroom, the JSON's budgets), and a
// second start-up's total starts the budget over.
TEST_F(BudgetTest, AHealthyStartUpShowsItsHeadroom) {
  std::string two_runs =
      std::string(kLedger) + "INFO engine stopped\n" +
      "INFO 03-21 21:00:00 [worker.py:267] the current vLLM instance can use total_gpu_memory "
      "(79.19GiB) x gpu_memory_utilization (0.95) = 75.23GiB\n";
  Report report = Scan(two_runs);
  EXPECT_TRUE(report.incidents.empty());
  ASSERT_EQ(report.budgets.size(), 1u);
  const InputBudget& budget = report.budgets[0];
  EXPECT_EQ(budget.input, "t.log");
  ASSERT_EQ(budget.entries.size(), 3u) << "the second start-up's figures only";
  RenderOptions options;
  options.headroom = true;
  std::ostringstream text;
  RenderText(report, options, text);
  EXPECT_NE(text.str().find("headroom  3.96G of the 79.19G device is outside the engine's share "
                            "(gpu_memory_utilization 0.95)"),
            std::string::npos)
      << text.str();
  Report back = ThroughJson(report);
  ASSERT_EQ(back.budgets.size(), 1u);
  EXPECT_EQ(back.budgets[0].entries.size(), 3u);

  Report first = Scan(kLedger);  // a whole ledger: its parts fill the share
  std::ostringstream one;
  RenderText(first, options, one);
  EXPECT_NE(one.str().find("its parts fill the 71.27G share"), std::string::npos) << one.str();
}

// SGLang's start-up as a real log printed it (ktransformers#1757, in testdata): the
// KV cache's share once, its halves as the parts, and what the pool left free.
TEST_F(BudgetTest, AnSglangStartUpGivesItsKvCacheAndWhatWasLeftFree) {
  std::ifstream in(std::string(OOMLENS_SOURCE_DIR) +
                   "/testdata/logs/budget/sglang_startup_minimax_healthy_ktransformers1757.log");
  Report report = Scan(std::string(std::istreambuf_iterator<char>(in), {}));
  EXPECT_TRUE(report.incidents.empty());
  ASSERT_EQ(report.budgets.size(), 1u);
  const std::vector<BudgetEntry>& budget = report.budgets[0].entries;
  auto gib = [&budget](const std::string& name) {
    for (const auto& b : budget)
      if (b.name == name) return static_cast<double>(b.value.integer) / (1LL << 30);
    return -1.0;
  };
  EXPECT_NEAR(gib("available_bytes"), 24.30, 1e-6) << "after the weights, not after the pool";
  EXPECT_NEAR(gib("kv_cache_bytes"), 5.45, 1e-6);
  EXPECT_NEAR(gib("kv_cache_k_bytes"), 2.73, 1e-6);
  EXPECT_NEAR(gib("free_after_kv_cache_bytes"), 18.64, 1e-6);
  EXPECT_FALSE(BudgetPart(budget, "kv_cache_bytes")) << "its halves are the parts: counted once";
  EXPECT_TRUE(BudgetPart(budget, "kv_cache_k_bytes"));
  RenderOptions options;
  options.headroom = true;
  std::ostringstream text;
  RenderText(report, options, text);
  EXPECT_NE(text.str().find("18.64G was free after it, for activations and CUDA graphs"), std::string::npos)
      << text.str();
}

// A compiled program's memory stats tie themselves to a failure by the byte: the
// request that failed is its temporaries. What would fit then cuts only the
// temporaries, since the arguments do not shrink with the batch.
const char kCompiledStats[] =
    "I1201 10:00:41.000000 140 train.py:88] CompiledMemoryStats(generated_code_size_in_bytes=1048576, "
    "argument_size_in_bytes=3221225472, output_size_in_bytes=3221225472, alias_size_in_bytes=2147483648, "
    "temp_size_in_bytes=2147483648)\n";

TEST_F(BudgetTest, ARequestThatIsTheProgramsTemporariesIsCutThereAlone) {
  Report report = Scan(std::string(kCompiledStats) +
                       "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device "
                       "buffer: Attempting to allocate 2.00G. That was not possible. There are 1.20G free.; "
                       "(0x0x0_HBM0)\n");
  ASSERT_EQ(report.incidents.size(), 1u);
  const Diagnosis& d = report.incidents[0].diagnosis;
  EXPECT_EQ(d.best.rule, "xla.compiled_temporaries");
  // 3G of arguments, 1G of new outputs (3G less the 2G aliased), 2G of temporaries.
  EXPECT_NE(d.summary.find("The program's own memory while it runs is 6.00G: temporaries 2.00G (33%), "
                           "arguments 3.00G, new outputs 1.00G"),
            std::string::npos)
      << d.summary;
  EXPECT_NE(d.fit.find("temporaries of at most 1.20G: a per-device batch of about 60% of this one"),
            std::string::npos)
      << d.fit;
  EXPECT_NE(d.advice[1].find("Donate the inputs"), std::string::npos) << "1G of outputs are new buffers";
}

TEST_F(BudgetTest, AnotherProgramsStatsDoNotExplainTheRequest) {
  Report report =
      Scan(std::string(kCompiledStats) +
           "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device "
           "buffer: Attempting to allocate 512.00M. That was not possible. There are 100.00M free.; "
           "(0x0x0_HBM0)\n");
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_NE(report.incidents[0].diagnosis.best.rule, "xla.compiled_temporaries");
  EXPECT_EQ(report.incidents[0].budget.size(), 5u) << "the budget is still shown";
}

// The model's figures a log printed (its configuration, its parameter count) give
// formulas with their constants named, as a second line beside the budget.
TEST_F(BudgetTest, ATrainingOomGetsTheTrainingStateByFormula) {
  std::ifstream in(std::string(OOMLENS_SOURCE_DIR) +
                   "/testdata/logs/budget/hf_trainer_lora_config_then_oom_synthetic.log");
  Report report = Scan(std::string(std::istreambuf_iterator<char>(in), {}));
  ASSERT_EQ(report.incidents.size(), 1u);
  const Incident& incident = report.incidents[0];
  EXPECT_EQ(Find(incident, "parameter_count")->value.integer, 8043892736);
  EXPECT_EQ(Find(incident, "num_kv_heads")->value.integer, 8);
  ASSERT_EQ(incident.diagnosis.formulas.size(), 1u) << "no KV cache in a training step";
  // 8,030,261,248 frozen x 2 + 13,631,488 x 16 = 16,278,626,304 bytes = 15.16 GiB
  EXPECT_NE(incident.diagnosis.formulas[0].find("8,030,261,248 frozen parameters x 2 bytes (bfloat16) + "
                                                "13,631,488 trained x 16 bytes"),
            std::string::npos)
      << incident.diagnosis.formulas[0];
  EXPECT_NE(incident.diagnosis.formulas[0].find("= 15.16G before activations"), std::string::npos);
  std::ostringstream text;
  RenderText(report, RenderOptions{}, text);
  EXPECT_NE(text.str().find("    formula   training state by formula"), std::string::npos) << text.str();
  std::ostringstream json;
  RenderJson(report, json);
  auto formulas = nlohmann::json::parse(json.str())["incidents"][0]["formulas"];
  ASSERT_EQ(formulas.size(), 1u);
  EXPECT_EQ(formulas[0], incident.diagnosis.formulas[0]);
}

TEST_F(BudgetTest, AServingOomComparesTheKvFormulaWithTheLogsOwnFigure) {
  Report report =
      Scan(std::string("  \"head_dim\": 128,\n  \"num_hidden_layers\": 32,\n") +
           "  \"num_key_value_heads\": 32,\n  \"torch_dtype\": \"bfloat16\",\n" + kLedger + kTooLong);
  ASSERT_EQ(report.incidents.size(), 1u);
  const auto& formulas = report.incidents[0].diagnosis.formulas;
  ASSERT_EQ(formulas.size(), 1u);
  // 2 x 32 x 32 x 128 x 2 bytes = 524,288 bytes a token; 56.18G / 115,072 tokens = 524,218 bytes
  EXPECT_NE(
      formulas[0].find("32 KV heads x 128 head_dim x 2 bytes (bfloat16) = 512.00K a token; the log's own "
                       "figure: 511.93K a token (56.18G for 115,072 tokens), which is the one to trust"),
      std::string::npos)
      << formulas[0];
}

TEST_F(BudgetTest, ANestedConfigurationsKeysAreNotTheModels) {
  Report report =
      Scan(std::string("[INFO] Model config LlavaConfig {\n") +
           "  \"text_config\": {\n    \"num_hidden_layers\": 32,\n    \"num_key_value_heads\": 8\n"
           "  },\n  \"torch_dtype\": \"float16\",\n  \"vision_config\": {\n"
           "    \"hidden_size\": 1024,\n    \"num_hidden_layers\": 24\n  }\n}\n" +
           kLedger + kTooLong);
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(Find(report.incidents[0], "num_layers"), nullptr) << "24 is the vision tower's";
  EXPECT_EQ(Find(report.incidents[0], "hidden_size"), nullptr);
  EXPECT_EQ(Find(report.incidents[0], "model_dtype")->value.text, "float16");
  EXPECT_TRUE(report.incidents[0].diagnosis.formulas.empty()) << "no formula from half a configuration";
}

}  // namespace
}  // namespace oomlens
