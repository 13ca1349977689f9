// The hand reader of flat JSON lines against the JSON parser: the same text,
// lines and host for docker's lines, Cloud Logging's, and lines mutated a byte
// at a time (escapes, nesting, numbers, repeated keys, trailing text).
#include "core/input/unwrap.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace oomlens {
namespace {

struct Unwrapped {
  bool ok = false;
  std::vector<std::string> texts;
  std::string host;
  bool operator==(const Unwrapped& o) const {
    return ok == o.ok && (!ok || (texts == o.texts && host == o.host));
  }
};

template <typename Unwrap>
Unwrapped Run(Unwrap unwrap, const std::string& line) {
  Unwrapped out;
  out.ok = unwrap(line, &out.texts, &out.host);
  return out;
}

void ExpectSame(const std::string& line) {
  Unwrapped fast = Run(UnwrapJson, line), parsed = Run(UnwrapJsonByParser, line);
  EXPECT_TRUE(fast == parsed) << "line: " << line << "\nhand: " << fast.ok << " "
                              << (fast.texts.empty() ? "" : fast.texts[0]) << "\nparser: " << parsed.ok << " "
                              << (parsed.texts.empty() ? "" : parsed.texts[0]);
}

const std::vector<std::string> kLines = {
    R"j({"log":"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n","stream":"stderr","time":"2026-01-01T00:00:00Z"})j",
    R"j({"log": "Memstats: step 1: Using (GB) 3.10 / 30.75 (11.0%)", "stream": "stderr"})j",
    R"j(  {"message":"OOMKilled","level":3,"ok":true,"x":null,"f":-1.5e+3})j",
    R"j({"msg":"exit code 137","message":"","log":""})j",
    R"j({"log":"first","log":"second"})j",
    R"j({"message":"OOMKilled","message":8,"ok":true})j",  // the last is no text: none (jsonline_fuzzer)
    R"j({"msg":"exit code 137","msg":null,"log":"","log":false})j",
    R"j({"textPayload":"Attempting to reserve 29.49G","resource":{"labels":{"pod_name":"worker-3"}}})j",
    R"j({"jsonPayload":{"message":"killed"},"msg":"plain"})j",
    R"j({"log":"caf\u00e9 \"quoted\" \\ back"})j",
    R"j({"log":"step 4:  40%|####  | 200/500\rstep 4: 100%|#####| 500/500\n","stream":"stderr"})j",
    R"j({"log":"a \"quoted\" \\ path \/x\ttab\bbs\fff\n\n","stream":"stdout"})j",
    R"j({"log":"x\n","log":"y\r\n","msg":"\\"})j",
    R"j({"l\u006fg":"escaped key","log":"plain"})j",
    R"j({"lo\/g":"an escaped key the parser reads as lo/g","message":"m\n"})j",
    R"j({"log":"\n"})j",
    R"j({"log":"bad \x escape"})j",
    R"j({"log":"ends in a backslash\"})j",
    R"j({"log":"  File \"train.py\", line 7, in \u003cmodule\u003e\n","stream":"stderr"})j",
    R"j({"log":"\u003C\u00e9\u0000\u20ac\uFFFF end","n":1})j",
    R"j({"log":"a pair \ud83d\ude00 goes to the parser"})j",
    R"j({"log":"a lone \udc00 half is refused"})j",
    R"j({"log":"\u12"})j",
    "{\"log\":\"tqdm \xe2\x96\x88\xe2\x96\x88 caf\xc3\xa9 \xf0\x9f\x98\x80 del \x7f\\n\",\"k\xc3\xa9y\":1}",
    "{\"log\":\"bad \xc3\x28 utf-8\"}",
    "{\"log\":\"overlong \xc0\xaf\"}",
    "{\"log\":\"surrogate \xed\xa0\x80\"}",
    "{\"log\":\"past U+10FFFF \xf4\x90\x80\x80\"}",
    "{\"log\":\"cut \xe2\x96\"}",
    R"j({"insertId":"x1","resource":{"type":"k8s_container","labels":{"pod_name":"trainer-0","container_name":"jax"}},"textPayload":"XlaRuntimeError: RESOURCE_EXHAUSTED\n","severity":"ERROR"})j",
    R"j({"jsonPayload":{"message":"killed \u003cpid 7\u003e","extra":[1,{"a":[]},"s"]},"resource":{"labels":{"instance_id":"42"}}})j",
    R"j({"log":"oom\n","kubernetes":{"pod_name":"worker-3","labels":{"app":"jax"},"annotations":{}},"stream":"stderr"})j",
    R"j({"message":"m","labels":{"compute.googleapis.com/resource_name":"node-a"},"resource":{"labels":{"node_id":"n1"}}})j",
    R"j({"resource":{"labels":{"pod_name":"first"}},"log":"x","resource":{"labels":{}}})j",
    R"j({"resource":{"labels":{"pod_name":"first"}},"log":"x","resource":7})j",
    R"j({"log":"x","resource":{"labels":{"pod_name":"a","pod_name":"b"}}})j",
    R"j({"log":{"nested":"no text"},"msg":"from msg","resource":{"labels":{"pod_name":["array"]}}})j",
    R"j({"items":[{"log":"inside an array"}],"message":"outside"})j",
    R"j({"log":"deep","a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":{"k":{"l":{"m":{"n":{"o":{"p":{"q":1}}}}}}}}}}}}}}}}})j",
    R"j({"log":"x","a":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]})j",
    R"j({"log":"tab	inside"})j",
    R"j({})j",
    R"j({"log":"x"} trailing)j",
    R"j({"log":"x",})j",
    R"j({"n":01,"log":"x"})j",
    R"j({"n":1.,"log":"x"})j",
    R"j({"log":"x","n":-})j",
    R"j({"log":"x","f":1e400})j",  // more than a double holds: the parser refuses the line
    R"j({"log":"x","f":-2e622})j",
    R"j({"log":"x","n":123456789012345678901234567890})j",
    R"j({"log":"x","f":0.000000000000000000000000000000001})j",
};

TEST(UnwrapJson, TheHandReaderAgreesWithTheParserOnKnownShapes) {
  for (const std::string& line : kLines) ExpectSame(line);
  std::vector<std::string> texts;
  std::string host = "stale";
  ASSERT_TRUE(UnwrapJson(kLines[0], &texts, &host));
  EXPECT_EQ(texts, std::vector<std::string>{"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"});
  EXPECT_EQ(host, "");
  ASSERT_TRUE(UnwrapJson(kLines[4], &texts, &host));
  EXPECT_EQ(texts, std::vector<std::string>{"second"});  // a repeated key: its last value
  ASSERT_TRUE(UnwrapJson(kLines[11], &texts, &host));    // docker's line: its "\n" is no line of its own
  const std::vector<std::string> decoded = {"a \"quoted\" \\ path /x\ttab\bbs\fff", ""};
  EXPECT_EQ(texts, decoded);
  // Cloud Logging's record: the text and the pod named in its resource labels.
  ASSERT_TRUE(UnwrapJson(
      R"j({"resource":{"type":"k8s_container","labels":{"pod_name":"trainer-0"}},"textPayload":"boom\n"})j",
      &texts, &host));
  EXPECT_EQ(texts, std::vector<std::string>{"boom"});
  EXPECT_EQ(host, "trainer-0");
}

TEST(UnwrapJson, TheHandReaderAgreesWithTheParserOnMutatedLines) {
  std::mt19937 rng(5);
  const std::string bytes =
      "{}[]\":,\\ \t0123456789.eE+-abtrufnlABCDF\x7f\xc3\x01\x80\xa0\xbf\xe2\xed\xf0\xf4";
  for (int round = 0; round < 20000; ++round) {
    std::string line = kLines[rng() % kLines.size()];
    for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0 && !line.empty(); --edits) {
      size_t at = rng() % line.size();
      switch (rng() % 3) {
        case 0: line[at] = bytes[rng() % bytes.size()]; break;
        case 1: line.insert(at, 1, bytes[rng() % bytes.size()]); break;
        default: line.erase(at, 1); break;
      }
    }
    ExpectSame(line);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace oomlens
