#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/analyze/decide.h"
#include "core/rules/doc_loader.h"
#include "core/rules/embedded_rules.h"
#include "core/rules/rule_data.h"
#include "oomlens/rules.h"

namespace oomlens {
namespace {

std::vector<std::string> LoadProblems(const std::string& text, bool check_samples = false) {
  RuleSet rules;
  std::vector<Problem> problems;
  rules.LoadText("bad.json", text, &problems);
  if (check_samples) rules.CheckSamples(&problems);
  std::vector<std::string> out;
  for (const auto& p : problems) out.push_back(FormatProblem(p));
  return out;
}

const char kGoodSignature[] = R"json({"version": 1, "signatures": [{
  "id": "demo", "kind": "tpu_buffer_alloc", "literals": ["Demo OOM"],
  "start": "Demo OOM", "facts": ["wanted (?P<requested_bytes>{size})"],
  "require": ["requested_bytes"],
  "samples": [{"text": "Demo OOM: wanted 1.00G", "expect": {"requested_bytes": "1.00G"}}]}]})json";

TEST(RuleLoader, AcceptsAValidDocument) { EXPECT_TRUE(LoadProblems(kGoodSignature, true).empty()); }

TEST(RuleLoader, RejectsInvalidJsonWithItsLocation) {
  auto problems = LoadProblems("{\"version\": 1,\n  \"signatures\": [\n    {\"id\": }\n  ]}");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].substr(0, 35), "bad.json:3:12: invalid JSON: syntax");
  EXPECT_NE(problems[0].find("(help: fix the JSON syntax"), std::string::npos);
}

// A brief load (the built-in rules': samples left out before parsing) places a
// syntax error where the file has it, after samples as before them.
TEST(RuleLoader, ABriefLoadPlacesAnErrorInTheFileAsWritten) {
  const std::string text =
      "{\"version\": 1,\n  \"signatures\": [{\"id\": \"a\",\n    \"samples\": [{\"text\": \"x\"}],\n"
      "    \"kind\": }]}";
  for (bool brief : {false, true}) {
    RuleData data;
    std::vector<Problem> problems;
    EXPECT_FALSE(DocLoader("bad.json", text, &problems, /*compile_now=*/false, brief).Load(&data));
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_EQ(FormatProblem(problems[0]).substr(0, 35), "bad.json:4:13: invalid JSON: syntax") << brief;
  }
}

// A brief load holds what a whole one does but the samples and each rule's line.
TEST(RuleLoader, ABriefLoadIsTheWholeOneWithoutSamplesOrLines) {
  for (const auto& file : EmbeddedRuleFiles()) {
    RuleData brief, whole;
    std::vector<Problem> problems;
    ASSERT_TRUE(DocLoader(std::string(file.name), file.text, &problems, false, true).Load(&brief));
    ASSERT_TRUE(DocLoader(std::string(file.name), file.text, &problems, false, false).Load(&whole));
    ASSERT_EQ(brief.signatures.size(), whole.signatures.size()) << file.name;
    for (size_t i = 0; i < whole.signatures.size(); ++i) {
      const Signature &b = brief.signatures[i], &w = whole.signatures[i];
      EXPECT_EQ(b.id, w.id);
      EXPECT_EQ(b.literals, w.literals);
      EXPECT_EQ(b.start.pattern(), w.start.pattern());
      EXPECT_EQ(b.facts.size(), w.facts.size());
      EXPECT_TRUE(b.brief && b.samples.empty() && b.where == std::string(file.name));
      EXPECT_TRUE(!w.brief && !w.samples.empty() && w.where.rfind(std::string(file.name) + ":", 0) == 0);
    }
    ASSERT_EQ(brief.causes().size(), whole.causes().size()) << file.name;
    for (size_t i = 0; i < whole.causes().size(); ++i) {
      EXPECT_EQ(brief.causes()[i].id, whole.causes()[i].id);
      EXPECT_EQ(brief.causes()[i].advice.size(), whole.causes()[i].advice.size());
      EXPECT_TRUE(brief.causes()[i].samples.empty() && !whole.causes()[i].samples.empty());
    }
    EXPECT_EQ(brief.meanings(), whole.meanings());
  }
}

TEST(RuleLoader, ANumberTooLargeForADoubleIsAnErrorNotACrash) {
  // Found by rules_fuzzer: nlohmann throws out_of_range (not parse_error) here.
  auto problems = LoadProblems("{\"version\": 1, \"x\": -55555E555558}");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("bad.json: invalid JSON: [json.exception.out_of_range.406] number overflow"),
            std::string::npos)
      << problems[0];
}

// A reader keeps the last of two equal keys, silently: a rule that lost its first
// "advice" would load. One error per repeated key, at the repeat, even when the
// repeated value is an object whose members repeat too.
TEST(RuleLoader, AKeyWrittenTwiceInOneObjectIsAnError) {
  auto problems = LoadProblems(
      "{\"version\": 1,\n \"signatures\": [{\"id\": \"a\",\n  \"id\": \"b\"}],\n"
      " \"x\": {\"k\": 1}, \"x\": {\"k\": 2}}");
  ASSERT_EQ(problems.size(), 2u) << problems[0];
  EXPECT_EQ(
      problems[0],
      "bad.json:3:3: /signatures/0/id: the key 'id' appears twice in one object (help: keep one 'id': a "
      "JSON reader keeps only the last, silently)");
  EXPECT_EQ(problems[1].substr(0, 47), "bad.json:4:17: /x: the key 'x' appears twice in");
  for (const auto& p : LoadProblems("{\"version\": 1, \"signatures\": [{\"id\": \"a\"}, {\"id\": \"b\"}]}"))
    EXPECT_EQ(p.find("appears twice"), std::string::npos)
        << "the same key in two objects is no repeat: " << p;
}

TEST(RuleLoader, RejectsUnknownKeyListingAllowedKeys) {
  auto problems = LoadProblems("{\"version\": 1, \"signatures\": [\n  {\"id\": \"x\", \"strat\": \"y\"}]}");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "bad.json:2:24: /signatures/0/strat: unknown key 'strat' (help: allowed keys: activity, after, "
            "aggregates, annotates, before, code, complete, "
            "description, facts, follow, fragment, id, indented, input_facts, items, joins, kind, kind_when, "
            "literals, "
            "match, "
            "max_lines, "
            "max_wrap, phase, priority, reject, require, samples, "
            "series, start, title, values)");
}

TEST(RuleLoader, AMemoryRecordIsNoListingAnnotationOrFigure) {
  for (const char* other :
       {R"("after": ["xla_gpu_alloc"])", R"("annotates": ["xla_gpu_alloc"])", R"("series": true)"}) {
    auto problems = LoadProblems(std::string(R"json({"version": 1, "signatures": [{
  "id": "demo", "kind": "xla_buffer_assignment", "literals": ["Total bytes used"],
  "start": "Total bytes used", "joins": ["xla_gpu"], )json") +
                                 other + "}]}");
    ASSERT_FALSE(problems.empty()) << other;
    EXPECT_NE(problems[0].find("/signatures/0/joins: a memory record ('joins') is a message of its own"),
              std::string::npos)
        << problems[0];
  }
}

TEST(RuleLoader, ValuesNeedATextFactThatAPatternCaptures) {
  auto problems = LoadProblems(R"json({"version": 1, "signatures": [{
  "id": "demo", "kind": "tpu_buffer_alloc", "literals": ["Demo OOM"], "start": "Demo OOM",
  "facts": ["wanted (?P<requested_bytes>{size})"], "require": ["requested_bytes"],
  "values": {"requested_bytes": {"1": "one"}, "memory_space": {"203": "hbm"}},
  "samples": [{"text": "Demo OOM: wanted 1.00G", "expect": {"requested_bytes": "1.00G"}}]}]})json");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(
      problems[0].find("/values/memory_space: 'values' needs a text fact that a pattern of 'facts' captures"),
      std::string::npos)
      << problems[0];
  EXPECT_NE(problems[1].find("/values/requested_bytes:"), std::string::npos) << problems[1];
}

TEST(RuleLoader, ValuesAndWordsAreReadAsTheSamplesSay) {
  // A code becomes its name, a count of words becomes bytes; a code not listed stays.
  auto problems = LoadProblems(R"json({"version": 1, "signatures": [{
  "id": "demo", "kind": "tpu_vmem", "literals": ["Demo OOM"], "start": "Demo OOM",
  "facts": ["needs (?P<requested_bytes__words>\\d+) words in space (?P<memory_space>\\d+)"],
  "require": ["requested_bytes"], "values": {"memory_space": {"203": "hbm"}},
  "samples": [{"text": "Demo OOM: needs 1000 words in space 203", "expect": {"requested_bytes": "4000", "memory_space": "hbm"}},
              {"text": "Demo OOM: needs 3 words in space 7", "expect": {"requested_bytes": "12", "memory_space": "7"}}]}]})json",
                               true);
  EXPECT_TRUE(problems.empty()) << problems[0];
}

TEST(RuleLoader, RequiresVersionOne) {
  auto problems = LoadProblems("{\"version\": 2}");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "bad.json:1:13: /version: 'version' must be 1 (help: add \"version\": 1 (the only rule format "
            "version this oomlens reads))");
}

TEST(RuleLoader, ReportsEveryProblemInOneRun) {
  auto problems = LoadProblems(R"json({"version": 1, "signatures": [{
  "id": "x", "kind": "k", "literals": ["a"], "start": "(unclosed",
  "facts": ["(?P<not_a_fact>\\d+)"], "require": ["requested_bytes"]}]})json");
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_EQ(problems[0].substr(0, 63), "bad.json:2:55: /signatures/0/start: invalid regex: missing ): (");
  EXPECT_EQ(problems[1],
            "bad.json:3:13: /signatures/0/facts/0: group 'not_a_fact' is not a fact oomlens reads "
            "(help: name groups after facts listed by 'oomlens rules facts')");
  EXPECT_EQ(problems[2],
            "bad.json:3:13: /signatures/0/facts/0: pattern captures no fact (help: add (?P<fact_name>...))");
  EXPECT_EQ(problems[3],
            "bad.json:3:49: /signatures/0/require: required fact 'requested_bytes' is captured by no pattern "
            "(help: add a pattern with (?P<requested_bytes>...) to 'facts')");
}

TEST(RuleLoader, RejectsBadCauseExpressions) {
  auto problems = LoadProblems(R"json({"version": 1, "causes": [{
  "id": "c", "cause": "oversize", "confidence": 2,
  "when": "requested_bytes > nonsense", "summary": "x {free_bytes"}]})json");
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[0],
            "bad.json:3:11: /causes/0/when: bad expression at column 19 of 'requested_bytes > nonsense': "
            "unknown fact 'nonsense' (see 'oomlens rules facts' for the list) (help: see docs/rules.md, "
            "'Expressions')");
  EXPECT_EQ(problems[1],
            "bad.json:2:49: /causes/0/confidence: 'confidence' must be a number from 0 to 1 (help: e.g. "
            "\"confidence\": 0.8)");
  EXPECT_EQ(
      problems[2],
      "bad.json:3:52: /causes/0/summary: bad template at column 3: unclosed '{' (write '{{' for a brace) "
      "(help: parts are {expression} or {expression:format})");
}

TEST(RuleLoader, SamplesThatDoNotMatchAreErrors) {
  std::string text = kGoodSignature;
  text.replace(text.find("\"1.00G\"}"), 7, "\"2.00G\"");
  auto problems = LoadProblems(text, true);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "bad.json:5:15: sample: requested_bytes is '1.00G', expected '2.00G' (help: fix the fact pattern "
            "or the expectation)");
}

TEST(RuleLoader, LaterEntriesOverrideById) {
  RuleSet rules;
  std::vector<Problem> problems;
  ASSERT_TRUE(rules.LoadBuiltin(&problems));
  size_t before = rules.List().size();
  std::string replacement = kGoodSignature;
  replacement.replace(replacement.find("\"demo\""), 6, "\"tpu_program_load\"");
  ASSERT_TRUE(rules.LoadText("mine.json", replacement, &problems));
  EXPECT_EQ(rules.List().size(), before);
  bool found = false;
  for (const auto& e : rules.List()) found = found || (e.id == "tpu_program_load" && e.file == "mine.json");
  EXPECT_TRUE(found);
}

// A sample field of the wrong type is a problem with its place, not an abort.
TEST(RuleLoader, SampleFieldsOfTheWrongTypeAreProblems) {
  auto problems = LoadProblems(R"json({"version": 1, "signatures": [{
    "id": "demo", "kind": "tpu_buffer_alloc", "literals": ["Demo OOM"], "start": "Demo OOM",
    "samples": [{"text": "Demo OOM", "no_match": "yes"}, {"text": 5}, {"text": "Demo OOM", "allocations": -1}]}],
    "causes": [{"id": "c", "cause": "oversize", "when": "true", "confidence": 0.5, "summary": ["s"],
    "samples": [{"facts": {}, "expect": true, "summary": 5}, {"facts": {}, "expect": true, "kind": 5},
                {"facts": 3, "expect": true}]}]})json",
                               true);
  ASSERT_EQ(problems.size(), 6u);
  EXPECT_NE(problems[0].find("bad.json:3:"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("sample key 'no_match' must be true or false"), std::string::npos)
      << problems[0];
  EXPECT_NE(problems[1].find("sample key 'text' must be a string"), std::string::npos) << problems[1];
  EXPECT_NE(problems[2].find("'allocations' must be a whole number"), std::string::npos) << problems[2];
  EXPECT_NE(problems[5].find("'facts' must be an object of facts"), std::string::npos) << problems[5];
}

// "@name" in a signature's list stands for the file's shared list: the samples of
// two signatures read through one grammar, and an error in it names where it is written.
TEST(RuleLoader, SharedListsStandForTheirElements) {
  const char kShared[] = R"json({"version": 1,
  "shared": {"sizes": ["wanted (?P<requested_bytes>{size})",
                       "with (?P<free_bytes>{size}) free"]},
  "signatures": [
   {"id": "a", "kind": "tpu_buffer_alloc", "literals": ["A OOM"], "start": "A OOM",
    "facts": ["@sizes", "on (?P<device>dev\\d)"],
    "samples": [{"text": "A OOM: wanted 1.00G with 2.00M free on dev3",
                 "expect": {"requested_bytes": "1.00G", "free_bytes": "2.00M", "device": "dev3"}}]},
   {"id": "b", "kind": "tpu_buffer_alloc", "literals": ["B OOM"], "start": "B OOM", "facts": ["@sizes"],
    "samples": [{"text": "B OOM: wanted 5.00G", "expect": {"requested_bytes": "5.00G"}}]}]})json";
  EXPECT_TRUE(LoadProblems(kShared, true).empty());

  std::string bad = kShared;
  bad.replace(bad.find("with (?P<free_bytes>"), 20, "with (?P<free_byte>");
  auto problems = LoadProblems(bad);
  ASSERT_EQ(problems.size(), 4u);  // two for each signature using it, at the one place it is written
  EXPECT_EQ(problems[0].substr(0, 37), "bad.json:3:24: /shared/sizes/1: group") << problems[0];
  EXPECT_NE(problems[1].find("/shared/sizes/1: pattern captures no fact"), std::string::npos) << problems[1];
  EXPECT_EQ(problems[0], problems[2]);
}

// A shared string stands for a whole string field, or for one element of a list.
TEST(RuleLoader, SharedStringsStandForAFieldOrAnElement) {
  const char kShared[] = R"json({"version": 1,
  "shared": {"opening": "A OOM|B OOM", "wanted": "wanted (?P<requested_bytes>{size})"},
  "signatures": [{"id": "a", "kind": "tpu_buffer_alloc", "literals": ["A OOM", "B OOM"], "start": "@opening",
    "facts": ["@wanted"],
    "samples": [{"text": "B OOM: wanted 1.00G", "expect": {"requested_bytes": "1.00G"}}]}]})json";
  EXPECT_TRUE(LoadProblems(kShared, true).empty());
  std::string list_for_string = kShared;
  list_for_string.replace(list_for_string.find("\"A OOM|B OOM\""), 13, "[\"A OOM\"]");
  auto problems = LoadProblems(list_for_string);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("/signatures/0/start: '@opening' is a list; 'start' takes one string"),
            std::string::npos)
      << problems[0];
}

TEST(RuleLoader, AnUnknownOrUnusedSharedListIsAnError) {
  auto problems = LoadProblems(R"json({"version": 1, "shared": {"unused": ["x"]}, "signatures": [{
  "id": "demo", "kind": "tpu_buffer_alloc", "literals": ["Demo OOM"], "start": "Demo OOM",
  "facts": ["@sizes"], "samples": [{"text": "Demo OOM"}]}]})json");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("/signatures/0/facts/0: '@sizes' names nothing in 'shared'"), std::string::npos)
      << problems[0];
  EXPECT_NE(problems[1].find("/shared/unused: shared list 'unused' is used by no signature"),
            std::string::npos)
      << problems[1];
  auto malformed = LoadProblems(R"json({"version": 1, "shared": {"x": 5}})json");
  ASSERT_EQ(malformed.size(), 1u);
  EXPECT_NE(malformed[0].find("'shared' must be an object of lists and strings"), std::string::npos)
      << malformed[0];
}

TEST(BuiltinRules, EverySamplePasses) {
  RuleSet rules;
  std::vector<Problem> problems;
  EXPECT_TRUE(rules.LoadBuiltin(&problems));
  EXPECT_TRUE(rules.CheckSamples(&problems));
  for (const auto& p : problems) ADD_FAILURE() << FormatProblem(p);
}

TEST(BuiltinRules, SourceTreeRulesAreTheEmbeddedOnes) {
  RuleSet embedded, source;
  std::vector<Problem> problems;
  ASSERT_TRUE(embedded.LoadBuiltin(&problems));
  ASSERT_TRUE(source.LoadDirectory(std::string(OOMLENS_SOURCE_DIR) + "/rules", &problems));
  EXPECT_EQ(embedded.List().size(), source.List().size());
}

// The built-in cause files are read when a cause is first asked for: they must
// hold nothing the scan needs (a signature, or a shared list signatures use),
// and no other file may hold a cause rule or a meaning.
TEST(BuiltinRules, OnlyTheCauseFilesHoldCausesAndMeanings) {
  for (const auto& file : EmbeddedRuleFiles()) {
    nlohmann::json doc = nlohmann::json::parse(file.text);
    bool cause_file = file.name.rfind("rules/causes/", 0) == 0;
    for (const char* key : {"signatures", "shared"})
      EXPECT_EQ(cause_file && doc.contains(key), false) << file.name << " holds " << key;
    for (const char* key : {"causes", "meanings"})
      EXPECT_EQ(!cause_file && doc.contains(key), false) << file.name << " holds " << key;
  }
}

// Read later, the built-in causes are the same, in the same order, as read from
// the source tree at once; a rule the user loads after them still replaces one
// of the same id.
TEST(BuiltinRules, CausesReadOnFirstUseAreThoseReadAtOnce) {
  RuleSet embedded, source;
  std::vector<Problem> problems;
  ASSERT_TRUE(embedded.LoadBuiltin(&problems));
  ASSERT_TRUE(source.LoadDirectory(std::string(OOMLENS_SOURCE_DIR) + "/rules", &problems));
  const RuleData& deferred = RuleDataOf(embedded);
  const RuleData& at_once = RuleDataOf(source);
  ASSERT_EQ(deferred.causes().size(), at_once.causes().size());
  for (size_t i = 0; i < at_once.causes().size(); ++i)
    EXPECT_EQ(deferred.causes()[i].id, at_once.causes()[i].id);
  EXPECT_EQ(deferred.meanings(), at_once.meanings());
  EXPECT_TRUE(deferred.deferred_problems().empty());

  RuleSet mine;
  ASSERT_TRUE(mine.LoadBuiltin(&problems));
  std::string id = RuleDataOf(source).causes().front().id;
  std::string replacement =
      R"json({"version": 1, "causes": [{"id": ")json" + id +
      R"json(", "cause": "oversize", "when": "true", "confidence": 0.5, "summary": ["s"]}]})json";
  ASSERT_TRUE(mine.LoadText("mine.json", replacement, &problems));
  const auto& causes = RuleDataOf(mine).causes();
  ASSERT_EQ(causes.size(), at_once.causes().size());
  EXPECT_EQ(causes.front().id, id);
  EXPECT_EQ(causes.front().file, "mine.json");
  EXPECT_TRUE(problems.empty());
}

// The ids of the rules that apply to kind, in order.
std::vector<std::string> ApplyingTo(const std::vector<const CauseRule*>& rules, const std::string& kind) {
  std::vector<std::string> ids;
  for (const CauseRule* rule : rules)
    if (RuleAppliesTo(*rule, kind)) ids.push_back(rule->id);
  return ids;
}

// The kinds a diagnosis may be asked for: every incident kind, every kind a cause
// rule names, and one nothing names.
std::set<std::string> KindsToAskFor(const RuleSet& rules) {
  std::set<std::string> kinds = {"a_kind_no_rule_names"};
  for (const auto& kind : rules.IncidentKinds()) kinds.insert(kind);
  for (const auto& rule : RuleDataOf(rules).causes())
    for (const auto& kind : rule.kinds) kinds.insert(kind[0] == '!' ? kind.substr(1) : kind);
  return kinds;
}

// A diagnosis reads only the cause files whose build-time index names its kind:
// for every kind, the rules that apply are those of all the files, in the same
// order, and a TPU program's load failure reads under half the rules.
TEST(BuiltinRules, CausesForOneKindAreThoseThatApplyOfAllTheFiles) {
  RuleSet all;
  std::vector<Problem> problems;
  ASSERT_TRUE(all.LoadBuiltin(&problems));
  std::vector<const CauseRule*> every;
  for (const auto& rule : RuleDataOf(all).causes()) every.push_back(&rule);
  for (const auto& kind : KindsToAskFor(all)) {
    RuleSet fresh;  // nothing read yet: the index decides
    ASSERT_TRUE(fresh.LoadBuiltin(&problems));
    EXPECT_EQ(ApplyingTo(RuleDataOf(fresh).CausesMayApplyTo(kind), kind), ApplyingTo(every, kind)) << kind;
  }
  RuleSet fresh;
  ASSERT_TRUE(fresh.LoadBuiltin(&problems));
  EXPECT_LT(RuleDataOf(fresh).CausesMayApplyTo("tpu_program_load").size() * 2, every.size());
  EXPECT_TRUE(RuleDataOf(fresh).CausesMayApplyTo("a_kind_no_rule_names").size() < every.size());
}

// The build cuts each built-in cause file into units: its rules, in order, each
// as written but for its samples and with the kinds it names ("*": any kind),
// and its meanings.
TEST(BuiltinRules, CauseUnitsAreTheFilesRulesWithTheirKinds) {
  size_t units_seen = 0;
  for (const auto& file : EmbeddedRuleFiles()) {
    if (file.name.rfind("rules/causes/", 0) != 0) continue;
    nlohmann::json doc = nlohmann::json::parse(file.text), from_units = nlohmann::json::array();
    std::vector<std::string> kinds;
    nlohmann::json meanings;
    for (const auto& unit : EmbeddedCauseUnits()) {
      if (unit.file != file.name) continue;
      ++units_seen;
      nlohmann::json part = nlohmann::json::parse(unit.text);
      if (part.contains("meanings")) meanings = part["meanings"];
      for (const auto& rule : part.value("causes", nlohmann::json::array())) {
        from_units.push_back(rule);
        kinds.emplace_back(unit.kinds);
      }
    }
    nlohmann::json rules = doc.value("causes", nlohmann::json::array());
    ASSERT_EQ(from_units.size(), rules.size()) << file.name;
    for (size_t i = 0; i < rules.size(); ++i) {
      nlohmann::json written = rules[i];
      written.erase("samples");
      EXPECT_EQ(from_units[i], written) << file.name << " rule " << i;
      std::string named;
      for (const auto& kind : rules[i].value("kinds", std::vector<std::string>{}))
        named += (named.empty() ? "" : ",") + kind;
      EXPECT_EQ(kinds[i], named.empty() ? "*" : named) << file.name << " rule " << i;
    }
    EXPECT_EQ(meanings, doc.value("meanings", nlohmann::json())) << file.name;
  }
  EXPECT_GT(units_seen, 80u);
}

// Once a user's file replaced a built-in rule, a diagnosis of any kind sees it.
TEST(BuiltinRules, CausesForOneKindSeeARuleTheUserReplaced) {
  RuleSet mine;
  std::vector<Problem> problems;
  ASSERT_TRUE(mine.LoadBuiltin(&problems));
  ASSERT_TRUE(mine.LoadText("mine.json", R"json({"version": 1, "causes": [{"id": "mine",
      "cause": "oversize", "kinds": ["tpu_program_load"], "when": "true", "confidence": 0.5,
      "summary": ["s"]}]})json",
                            &problems));
  std::vector<std::string> ids =
      ApplyingTo(RuleDataOf(mine).CausesMayApplyTo("tpu_program_load"), "tpu_program_load");
  EXPECT_EQ(std::count(ids.begin(), ids.end(), "mine"), 1);
  EXPECT_GT(ids.size(), 3u);
  EXPECT_TRUE(problems.empty());
}

// Threads diagnosing at once read the deferred files once, all seeing them whole.
TEST(BuiltinRules, CausesReadOnFirstUseFromManyThreadsAtOnce) {
  RuleSet rules;
  std::vector<Problem> problems;
  ASSERT_TRUE(rules.LoadBuiltin(&problems));
  std::vector<std::vector<std::string>> seen(4), for_kind(4);
  std::vector<std::thread> threads;
  for (auto& causes : seen) threads.emplace_back([&rules, &causes] { causes = rules.Causes(); });
  for (auto& ids : for_kind)  // some files read for one kind while others merge them all
    threads.emplace_back([&rules, &ids] {
      ids = ApplyingTo(RuleDataOf(rules).CausesMayApplyTo("pytorch_cuda"), "pytorch_cuda");
    });
  for (auto& t : threads) t.join();
  EXPECT_GT(seen[0].size(), 5u);
  for (const auto& causes : seen) EXPECT_EQ(causes, seen[0]);
  EXPECT_GT(for_kind[0].size(), 5u);
  for (const auto& ids : for_kind) EXPECT_EQ(ids, for_kind[0]);
}

// --version counts the built-in rules without loading them: the counts agree.
TEST(BuiltinRules, CountedWithoutLoadingAsLoaded) {
  RuleSet rules;
  std::vector<Problem> problems;
  ASSERT_TRUE(rules.LoadBuiltin(&problems));
  size_t signatures = 0, causes = 0;
  for (const auto& e : rules.List()) (e.type == RuleEntry::Type::kSignature ? signatures : causes)++;
  RuleCounts counts = BuiltinRuleCounts();
  EXPECT_GT(counts.signatures, 50u);
  EXPECT_EQ(counts.signatures, signatures);
  EXPECT_EQ(counts.causes, causes);
}

// Shell completions read the built-in causes, kinds and codes without compiling a
// pattern: they are the loaded rules' own.
TEST(BuiltinRules, NamedWithoutLoadingAsLoaded) {
  RuleSet rules;
  std::vector<Problem> problems;
  ASSERT_TRUE(rules.LoadBuiltin(&problems));
  RuleNames names = BuiltinRuleNames();
  EXPECT_EQ(names.causes, rules.Causes());
  EXPECT_EQ(names.kinds, rules.IncidentKinds());
  EXPECT_EQ(names.codes, rules.Codes());
  EXPECT_GT(names.kinds.size(), 20u);
}

}  // namespace
}  // namespace oomlens
