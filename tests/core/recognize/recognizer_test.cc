#include "core/recognize/recognizer.h"

#include <gtest/gtest.h>

#include "core/analyze/allocation_summary.h"
#include "core/model/event.h"
#include "core/rules/rule_data.h"
#include "oomlens/rules.h"

namespace oomlens {
namespace {

class RecognizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<Problem> problems;
    ASSERT_TRUE(rules_.LoadBuiltin(&problems));
  }
  std::vector<Event> Recognize(const std::string& text) {
    problems_.clear();
    return RecognizeText(RuleDataOf(rules_), text, /*emit_annotations=*/false, &problems_);
  }
  static std::string Fact(const Event& e, const std::string& name) {
    auto it = e.facts.find(name);
    return it == e.facts.end() ? "absent" : it->second.text;
  }
  RuleSet rules_;
  std::vector<Problem> problems_;
};

TEST_F(RecognizerTest, WrappedMessageIsOneEvent) {
  auto events = Recognize(
      "RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve\n"
      "29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved,\n"
      "and 147.64M reservable.: while running replica 0 and partition 3 of a\n"
      "replicated computation (other replicas may have failed as well).\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "tpu_program_load");
  EXPECT_EQ(Fact(events[0], "program"), "jit_step");
  EXPECT_EQ(Fact(events[0], "requested_bytes"), "29.49G");
  EXPECT_EQ(Fact(events[0], "reservable_bytes"), "147.64M");
  EXPECT_EQ(events[0].partition, "3");
  EXPECT_EQ(events[0].where.line, 1u);
  EXPECT_EQ(events[0].excerpt.size(), 4u);
}

// A size is a whole token or nothing: never the "1.5" of "1.5e+09", the "0" of
// "0x10M" or the "10M" of "x10M".
TEST_F(RecognizerTest, SizesAreWholeTokensOrNothing) {
  auto exact = Recognize(
      "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 1.5e+09 bytes. "
      "That was not possible. There are 2.5e+03 MiB free.\n");
  ASSERT_EQ(exact.size(), 1u);
  EXPECT_EQ(exact[0].facts.at("requested_bytes").integer, 1500000000);
  EXPECT_EQ(exact[0].facts.at("free_bytes").integer, 2621440000);
  auto hex = Recognize(
      "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 0x10M. "
      "That was not possible. There are 6.43M free.\n");
  for (const auto& e : hex) EXPECT_EQ(Fact(e, "requested_bytes"), "absent");
}

TEST_F(RecognizerTest, HeaderThenUnlabelledBodyKeepsTheHeadersKind) {
  auto events = Recognize(
      "RESOURCE_EXHAUSTED: Error allocating device buffer: \n"
      "Attempting to allocate 1.96G. \n"
      "That was not possible. \n"
      "There are 3.46G free. \n"
      "The largest contiguous region of free memory is 1.75G due to fragmentation.\n"
      "Traceback (most recent call last):\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].signature, "tpu_buffer_alloc");
  EXPECT_EQ(Fact(events[0], "largest_free_bytes"), "1.75G");
}

TEST_F(RecognizerTest, InterleavedHostsContinueTheirOwnMessages) {
  auto events = Recognize(
      "[worker-0] RESOURCE_EXHAUSTED: Error loading program 'p': Attempting to reserve\n"
      "[worker-1] RESOURCE_EXHAUSTED: Error loading program 'p': Attempting to reserve\n"
      "[worker-0] 2.00G at the bottom of memory. That was not possible. There are 1.00G free.\n"
      "[worker-1] 2.00G at the bottom of memory. That was not possible. There are 1.50G free.\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].host, "worker-0");
  EXPECT_EQ(Fact(events[0], "free_bytes"), "1.00G");
  EXPECT_EQ(events[1].host, "worker-1");
  EXPECT_EQ(Fact(events[1], "free_bytes"), "1.50G");
}

TEST_F(RecognizerTest, RepeatedTruncatedMessagesStaySeparate) {
  const std::string line =
      "RESOURCE_EXHAUSTED: Error loading program 'jit_x': Attempting to reserve 6.14G at the bottom of "
      "memory. That was not possible.\n";
  auto events = Recognize(line + line);
  EXPECT_EQ(events.size(), 2u);
}

TEST_F(RecognizerTest, MessageWithoutRequiredFactIsSkippedWithAWarning) {
  auto events = Recognize("RESOURCE_EXHAUSTED: Error loading program 'jit_x':\n\nunrelated\n");
  EXPECT_TRUE(events.empty());
  ASSERT_EQ(problems_.size(), 1u);
  EXPECT_EQ(FormatProblem(problems_[0]),
            "sample:1: a tpu_program_load message without requested_bytes was skipped (cut off or reworded?) "
            "(help: if this is a real OOM message, add its wording to a signature (see docs/rules.md))");
}

// A figure that cannot be read (absurd, a decimal comma, digits apart) is left out
// with a warning, never invented or read as its leading digits; the OOM it was
// printed in is still one.
TEST_F(RecognizerTest, AnUnreadableFigureIsLeftOutAndTheOomKept) {
  const std::pair<const char*, const char*> cases[] = {
      {"9999999999999999999999G", "'9999999999999999999999G' is too large to be a byte count"},
      {"1,5G", "'1,5G' is not a size oomlens can read (a decimal comma, or digits apart?)"},
      {"1 024.00M", "'1 024.00M' is not a size oomlens can read (a decimal comma, or digits apart?)"},
  };
  for (const auto& [size, why] : cases) {
    problems_.clear();
    auto events = Recognize(std::string("Error allocating device buffer: Attempting to allocate ") + size +
                            ". That was not possible. There are 1.00G free.\n");
    ASSERT_EQ(events.size(), 1u) << size;
    EXPECT_EQ(events[0].facts.count("requested_bytes"), 0u) << size;
    EXPECT_EQ(events[0].facts.at("free_bytes").integer, 1ll << 30) << size;
    ASSERT_EQ(problems_.size(), 1u) << size;
    EXPECT_EQ(problems_[0].message, std::string("ignored requested_bytes: ") + why);
  }
  problems_.clear();  // units in any case and spelt out are read, not cut to their digits
  auto units = Recognize(
      "Error allocating device buffer: Attempting to allocate 8.00m. That was not possible. There are 1.5 gb "
      "free.\n");
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].facts.at("requested_bytes").integer, 8ll << 20);
  EXPECT_EQ(units[0].facts.at("free_bytes").integer, 3ll << 29);
  for (const char* spelling : {"1.5 GIB", "1.5 gIb", "1.5GIB"}) {  // the 'i' in any case too, not "1.5" bytes
    auto binary = Recognize(std::string("Error allocating device buffer: Attempting to allocate 2 MIB. That "
                                        "was not possible. There are ") +
                            spelling + " free.\n");
    ASSERT_EQ(binary.size(), 1u) << spelling;
    EXPECT_EQ(binary[0].facts.at("requested_bytes").integer, 2ll << 20) << spelling;
    EXPECT_EQ(binary[0].facts.at("free_bytes").integer, 3ll << 29) << spelling;
  }
}

// A dump printed after its OOM goes, piece by piece, to the listing sink a scan
// sets (a summariser that keeps the largest entries): the held event never holds
// the whole dump (100,000 entries took 118 MiB). Without a sink every entry stays
// on the event, for grouping to summarise: both give the same summary.
TEST_F(RecognizerTest, ADumpAfterItsOomGoesToTheListingSinkAsItIsRead) {
  std::vector<std::string> lines = {
      "E1130 10:00:00.000100 4242 pjrt_client.cc:410] RESOURCE_EXHAUSTED: Error allocating device buffer: "
      "Attempting to allocate 1000.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)",
      "E1130 10:00:00.000200 4242 tpu_allocator.cc:901] Live allocations at OOM: 3000 blocks"};
  for (int k = 0; k < 3000; ++k)
    lines.push_back("E1130 10:00:00.000300 4242 tpu_allocator.cc:905]   offset=0x" + std::to_string(k) +
                    " size=" + std::to_string(1 + k % 5) + ".00M state=allocated owner=jit_step_" +
                    std::to_string(k % 3) + " shape=f32[512," + std::to_string(k + 1) +
                    "] id=" + std::to_string(k));
  auto recognize = [&](bool summarise) {
    std::vector<Event> events;
    std::vector<Problem> problems;
    Recognizer recognizer(
        RuleDataOf(rules_), [&events](Event&& e) { events.push_back(std::move(e)); }, &problems);
    if (summarise) recognizer.set_listing_sinks([] { return std::make_unique<ListingSummarizer>(100); });
    recognizer.BeginInput("dump.log", 0);
    uint64_t offset = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      recognizer.Feed(Line{lines[i], i + 1, offset});
      offset += lines[i].size() + 1;
    }
    recognizer.Finish();
    return events;
  };
  auto whole = recognize(false), summarised = recognize(true);
  ASSERT_EQ(whole.size(), 1u);
  ASSERT_EQ(summarised.size(), 1u);
  EXPECT_EQ(whole[0].allocations.size(), 3000u);
  EXPECT_TRUE(whole[0].listing_facts.empty());
  EXPECT_EQ(summarised[0].allocations.size(), 100u);
  EXPECT_EQ(summarised[0].entries_not_kept, 2900u);
  for (const Allocation& a : summarised[0].allocations)
    EXPECT_EQ(a.fields.at("size_bytes").integer, 5ll << 20) << "the largest are kept";
  Incident incident;  // what grouping makes of the whole listing
  incident.allocations = whole[0].allocations;
  SummarizeListing(&incident);
  ASSERT_EQ(summarised[0].listing_facts.size(), incident.listing_facts.size());
  EXPECT_EQ(summarised[0].listing_facts.at("allocation_count").integer, 3000);
  for (const auto& [name, value] : incident.listing_facts) {
    EXPECT_EQ(summarised[0].listing_facts.at(name).integer, value.integer) << name;
    EXPECT_EQ(summarised[0].listing_facts.at(name).text, value.text) << name;
  }
}

TEST_F(RecognizerTest, PrecursorWarningAttachesToTheNextOomOfItsKinds) {
  auto events = Recognize(
      "Can't reduce memory use below 14.20GiB (15247089664 bytes) by rematerialization; only reduced to "
      "17.08GiB (18341011456 bytes), down from 19.20GiB (20615843840 bytes) originally\n"
      "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00M. That was not "
      "possible. There are 6.43M free.\n"
      "Ran out of memory in memory space hbm. Used 17.12G of 15.75G hbm. Exceeded hbm capacity by 1.37G.\n");
  ASSERT_EQ(events.size(), 2u);  // the warning is no incident of its own
  EXPECT_EQ(events[0].kind, "tpu_buffer_alloc");
  EXPECT_EQ(events[0].facts.count("remat_target_bytes"), 0u);  // not a kind it annotates
  EXPECT_EQ(events[1].kind, "tpu_compile_hbm");
  EXPECT_EQ(events[1].facts.at("remat_reduced_to_bytes").integer, 18341011456);
}

TEST_F(RecognizerTest, ListingEntriesBecomeAllocations) {
  auto events = Recognize(
      "Ran out of memory in memory space hbm. Used 9.00G of 8.00G hbm. Exceeded hbm capacity by 1.00G.\n"
      "  Largest program allocations in hbm:\n"
      "  1. Size: 2.00G\n"
      "     Shape: f32[8,128,9]{2,1,0:T(8,128)}\n"
      "     Unpadded size: 36.00K\n"
      "     Extra memory due to padding: 1.99G (14.2x expansion)\n"
      "     ==========================\n"
      "  2. Size: 1.00G\n"
      "     Operator: op_type=\"Dot\" op_name=\"a/b\\nc\" source_file=\"m.py\" source_line=3\n"
      "     Allocation type: parameter\n"
      "unrelated line\n");
  ASSERT_EQ(events.size(), 1u);
  ASSERT_EQ(events[0].allocations.size(), 2u);
  const Facts& a = events[0].allocations[0].fields;
  EXPECT_EQ(a.at("rank").integer, 1);
  EXPECT_EQ(a.at("shape").text, "f32[8,128,9]{2,1,0:T(8,128)}");
  EXPECT_DOUBLE_EQ(a.at("expansion").number, 14.2);
  const Facts& b = events[0].allocations[1].fields;
  EXPECT_EQ(b.at("operator").text, "a/b\\nc");
  EXPECT_EQ(b.at("source_file").text, "m.py");
  EXPECT_EQ(b.at("type").text, "parameter");
  EXPECT_EQ(b.count("shape"), 0u);  // fields absent from an entry stay absent
}

TEST_F(RecognizerTest, QuotaResourceExhaustedIsNotAnOom) {
  auto events = Recognize(
      "google.api_core.exceptions.ResourceExhausted: 429 Quota exceeded for aiplatform.googleapis.com\n"
      "status = StatusCode.RESOURCE_EXHAUSTED details = \"Received message larger than max (5308389 vs. "
      "4194304)\"\n");
  EXPECT_TRUE(events.empty());
  EXPECT_TRUE(problems_.empty());
}

}  // namespace
}  // namespace oomlens
