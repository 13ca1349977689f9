#include "cli/did_you_mean.h"

#include <algorithm>
#include <cctype>

namespace oomlens {
namespace {

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Optimal string alignment distance: insertions, deletions, substitutions and
// swaps of two neighbours ("jsno") each cost one.
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && Lower(a[i - 1]) == Lower(b[j - 2]) && Lower(a[i - 2]) == Lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string ClosestName(const std::string& word, const std::vector<std::string>& names) {
  if (word.size() > 64) return "";  // no typo is that long, and the table grows with it
  size_t allowed = std::max<size_t>(1, word.size() / 3);
  std::string best;
  size_t best_distance = allowed + 1;
  for (const auto& name : names) {
    size_t distance = EditDistance(word, name);
    if (distance < best_distance) best = name, best_distance = distance;
  }
  return best;
}

std::string DidYouMean(const std::string& word, const std::vector<std::string>& names) {
  std::string closest = ClosestName(word, names);
  return closest.empty() ? "" : " (did you mean '" + closest + "'?)";
}

}  // namespace oomlens
