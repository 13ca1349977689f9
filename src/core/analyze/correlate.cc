#include "core/analyze/correlate.h"

#include <string>

namespace oomlens {
namespace {

constexpr uint64_t kWindowLines = 500;  // a consequence follows its root closely

struct Chain {
  const char* root;
  const char* consequence;
  const char* relation;
};

// Known chains: the second failure is the first one seen from another layer.
constexpr Chain kChains[] = {
    {"bfc_allocator", "tf_oom_tensor", "the same allocation failure, reported by TensorFlow"},
    {"bfc_allocator", "xla_gpu_alloc", "the same allocation failure, reported by XLA"},
    {"host_oom_killer", "container_oom_killed", "the kill ended the container (exit code 137)"},
    {"host_oom_killer", "dataloader_killed", "the kill took down a DataLoader worker"},
    {"container_oom_killed", "host_oom_killer", "the process the container limit killed"},
};

const char* Relation(const std::string& root, const std::string& consequence) {
  for (const auto& c : kChains) {
    if (root == c.root && consequence == c.consequence) return c.relation;
  }
  return nullptr;
}

}  // namespace

void Correlate(std::vector<Incident>* incidents) {
  for (size_t b = 0; b < incidents->size(); ++b) {
    Incident& later = (*incidents)[b];
    for (size_t a = b; a-- > 0;) {
      const Incident& root = (*incidents)[a];
      if (root.first_input_index != later.first_input_index || root.consequence_of != 0) continue;
      if (later.first.line < root.first.line || later.first.line - root.first.line > kWindowLines) continue;
      if (const char* relation = Relation(root.kind, later.kind)) {
        later.consequence_of = a + 1;
        later.relation = relation;
        break;
      }
    }
  }
}

}  // namespace oomlens
