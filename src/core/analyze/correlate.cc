#include "core/analyze/correlate.h"

#include <string>

namespace oomlens {
namespace {

constexpr uint64_t kWindowLines = 500;  // a consequence follows its root closely

struct Chain {
  const char* root;
  const char* consequence;
  const char* relation;
  bool same_failure;  // one failure reported twice (not a failure that caused another)
};

// Known chains: the second failure is the first one seen from another layer.
constexpr Chain kChains[] = {
    {"bfc_allocator", "tf_oom_tensor", "the same allocation failure, reported by TensorFlow", true},
    {"bfc_allocator", "xla_gpu_alloc", "the same allocation failure, reported by XLA", true},
    {"host_oom_killer", "container_oom_killed", "the kill ended the container (exit code 137)", false},
    {"host_oom_killer", "dataloader_killed", "the kill took down a DataLoader worker", false},
    {"container_oom_killed", "host_oom_killer", "the process the container limit killed", false},
};

const Chain* FindChain(const std::string& root, const std::string& consequence) {
  for (const auto& c : kChains) {
    if (root == c.root && consequence == c.consequence) return &c;
  }
  return nullptr;
}

// A consequence prints fewer figures than its root (TensorFlow's error repeats
// the request; the allocator dump before it shows the whole allocator). When its
// own rules decide nothing, or it is the same failure and the root's rule is at
// least as sure, it takes the root's diagnosis.
void InheritDiagnosis(const Incident& root, const Chain& chain, Incident* later) {
  const Diagnosis& own = later->diagnosis;
  if (root.diagnosis.best.cause == "unknown") return;
  bool undecided = own.best.cause == "unknown";
  if (!undecided && !(chain.same_failure && root.diagnosis.best.confidence >= own.best.confidence)) return;
  Diagnosis taken = root.diagnosis;  // reports say which incident it follows (consequence_of)
  if (!undecided && own.best.cause != taken.best.cause) {
    taken.alternatives.insert(taken.alternatives.begin(),
                              CauseMatch{own.best.cause, own.best.rule, own.best.confidence, own.evidence});
  }
  later->diagnosis = std::move(taken);
}

// One failure, two reports: facts either printed and the other did not.
void ShareFacts(Incident* a, Incident* b) {
  for (const auto& [name, value] : a->facts) b->facts.emplace(name, value);  // emplace keeps what b printed
  for (const auto& [name, value] : b->facts) a->facts.emplace(name, value);
}

}  // namespace

void LinkConsequences(std::vector<Incident>* incidents) {
  for (size_t b = 0; b < incidents->size(); ++b) {
    Incident& later = (*incidents)[b];
    later.consequence_of = 0;
    later.relation.clear();
    for (size_t a = b; a-- > 0;) {
      Incident& root = (*incidents)[a];  // in order of first occurrence: earlier ones are further away
      if (root.first_input_index != later.first_input_index ||
          later.first.line - root.first.line > kWindowLines)
        break;
      if (root.consequence_of != 0) continue;
      if (const Chain* chain = FindChain(root.kind, later.kind)) {
        later.consequence_of = a + 1;
        later.relation = chain->relation;
        if (chain->same_failure) ShareFacts(&root, &later);
        break;
      }
    }
  }
}

void ShareDiagnoses(std::vector<Incident>* incidents) {
  for (auto& later : *incidents) {
    if (later.consequence_of == 0) continue;
    const Incident& root = (*incidents)[later.consequence_of - 1];
    const Chain* chain = FindChain(root.kind, later.kind);
    InheritDiagnosis(root, *chain, &later);
  }
}

}  // namespace oomlens
