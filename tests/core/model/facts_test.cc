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

}  // namespace
}  // namespace oomlens
