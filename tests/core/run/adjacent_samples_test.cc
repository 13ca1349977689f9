// A property of the whole input stage (attack review W2): one-line messages one under
// the other are read as they are read apart. For every pair of the rules' own one-line
// samples, and for seeded triples, the incidents of "A\nB\n" are those of "A\n\nB\n"
// (the paste restorer joined two log records into one message, and lost the second).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

// The text of every sample of rules/signatures that is one line and matches.
std::vector<std::string> OneLineSamples() {
  std::vector<std::string> samples;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(OOMLENS_SOURCE_DIR "/rules/signatures"))
    files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file);
    nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& signature : doc.value("signatures", nlohmann::json::array())) {
      for (const auto& sample : signature.value("samples", nlohmann::json::array())) {
        std::string text = sample.value("text", "");
        while (!text.empty() && text.back() == '\n') text.pop_back();
        if (!sample.value("no_match", false) && !text.empty() && text.find('\n') == std::string::npos)
          samples.push_back(text);
      }
    }
  }
  return samples;
}

class AdjacentSamples : public ScanFixture {
 protected:
  // Kinds and occurrences of the incidents of text, in order.
  std::string Incidents(const std::string& text) {
    std::ostringstream out;
    for (const Incident& i : Scan(text).incidents) out << i.kind << " x" << i.occurrences << "; ";
    return out.str();
  }
  // The failures of lines one under the other against the same lines apart.
  void ExpectSameApart(const std::vector<const std::string*>& lines, int* failures) {
    std::string adjacent, apart;
    for (const std::string* line : lines) {
      adjacent += *line + "\n";
      apart += (apart.empty() ? "" : "\n") + *line + "\n";
    }
    std::string together = Incidents(adjacent), separate = Incidents(apart);
    if (together == separate) return;
    if (++*failures <= 20)
      ADD_FAILURE() << "adjacent:\n" << adjacent << "-> " << together << "\napart -> " << separate;
  }
};

TEST_F(AdjacentSamples, EveryPairReadsAsItReadsApart) {
  std::vector<std::string> samples = OneLineSamples();
  ASSERT_GT(samples.size(), 100u);
  int failures = 0;
  for (const std::string& a : samples)
    for (const std::string& b : samples) ExpectSameApart({&a, &b}, &failures);
  EXPECT_EQ(failures, 0) << "of " << samples.size() * samples.size() << " pairs";
}

TEST_F(AdjacentSamples, SeededTriplesReadAsTheyReadApart) {
  std::vector<std::string> samples = OneLineSamples();
  std::mt19937 random(20261202);
  std::uniform_int_distribution<size_t> pick(0, samples.size() - 1);
  int failures = 0;
  for (int n = 0; n < 3000; ++n)
    ExpectSameApart({&samples[pick(random)], &samples[pick(random)], &samples[pick(random)]}, &failures);
  EXPECT_EQ(failures, 0) << "of 3000 triples";
}

}  // namespace
}  // namespace oomlens
