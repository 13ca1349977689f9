#include "oomlens/facts.h"

#include <gtest/gtest.h>

#include <string>

namespace oomlens {
namespace {

// Counts as engines print them: vLLM's "GPU KV cache size: 2,042,016 tokens".
TEST(CountFacts, ThousandsCommasReadOnlyWhenTheyGroupThousands) {
  const FactInfo& tokens = *FindFact("kv_cache_tokens");
  FactValue v;
  std::string error;
  ASSERT_TRUE(MakeFact(tokens, "2,042,016", &v, &error)) << error;
  EXPECT_EQ(v.integer, 2042016);
  ASSERT_TRUE(MakeFact(tokens, "178,880", &v, &error)) << error;
  EXPECT_EQ(v.integer, 178880);
  for (const char* bad : {"1,00", "12,3456", ",100", "1,000,", "1,,000", "1234,567", "-1,000"})
    EXPECT_FALSE(MakeFact(tokens, bad, &v, &error)) << bad;
}

// A size a log prints is an amount of memory: "There are -7.00E free" is refused
// (attack review W10), not read into "exceeds what is free by only -200%". A size
// printed as a difference (free minus request) and a derived one may be negative.
TEST(SizeFacts, ANegativeAmountOfMemoryIsRefused) {
  FactValue v;
  std::string error;
  EXPECT_FALSE(MakeFact(*FindFact("free_bytes"), "-7.00E", &v, &error));
  EXPECT_NE(error.find("negative amount of memory"), std::string::npos) << error;
  EXPECT_FALSE(MakeFact(*FindFact("requested_bytes"), "-1 bytes", &v, &error));
  ASSERT_TRUE(MakeFact(*FindFact("available_after_request_bytes"), "-2.55G", &v, &error)) << error;
  EXPECT_LT(v.integer, 0);
  ASSERT_TRUE(MakeFact(*FindFact("series_growth_bytes"), "-1.00G", &v, &error)) << error;
  ASSERT_TRUE(MakeFact(*FindFact("free_bytes"), "0B", &v, &error)) << error;
}

}  // namespace
}  // namespace oomlens
