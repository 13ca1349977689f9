#include "core/rules/expr.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "core/model/fact_values.h"
#include "core/rules/template.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

// Facts made the way a log prints them.
class ExprTest : public ::testing::Test {
 protected:
  void Set(const std::string& name, const std::string& text) {
    FactValue v;
    std::string error;
    ASSERT_TRUE(MakeFact(*FindFact(name), text, &v, &error)) << error;
    facts_[name] = v;
  }
  Value Eval(const std::string& src) {
    std::string error;
    size_t offset = 0;
    auto expr = Expr::Parse(src, &error, &offset);
    EXPECT_TRUE(expr) << src << ": " << error;
    if (!expr) return Value{};
    return expr->Evaluate([this](const std::string& n) -> const FactValue* {
      auto it = facts_.find(n);
      return it == facts_.end() ? nullptr : &it->second;
    });
  }
  std::string ParseError(const std::string& src) {
    std::string error;
    size_t offset = 0;
    EXPECT_FALSE(Expr::Parse(src, &error, &offset)) << src;
    return error + " @" + std::to_string(offset);
  }
  Facts facts_;
};

TEST_F(ExprTest, ComparisonsRespectRounding) {
  Set("requested_bytes", "1.54G");
  Set("free_bytes", "1.54G");
  EXPECT_FALSE(Eval("requested_bytes > free_bytes").truth());  // a tie, not a shortfall
  EXPECT_TRUE(Eval("requested_bytes >= free_bytes").truth());
  EXPECT_TRUE(Eval("requested_bytes == free_bytes").truth());
  Set("free_bytes", "1.52G");
  EXPECT_TRUE(Eval("requested_bytes > free_bytes").truth());
  EXPECT_TRUE(Eval("free_bytes < requested_bytes").truth());
  EXPECT_TRUE(Eval("requested_bytes != free_bytes").truth());
}

TEST_F(ExprTest, ArithmeticAndUnits) {
  Set("requested_bytes", "29.49G");
  Set("free_bytes", "147.64M");
  Value shortfall = Eval("requested_bytes - free_bytes");
  EXPECT_EQ(shortfall.unit, Unit::kBytes);
  EXPECT_EQ(FormatValue(shortfall, ""), "29.35G");
  Value ratio = Eval("requested_bytes / free_bytes");
  EXPECT_EQ(ratio.unit, Unit::kNumber);
  EXPECT_EQ(FormatValue(ratio, "ratio"), "204.5x");
  EXPECT_TRUE(Eval("requested_bytes > 2 * free_bytes and requested_bytes >= 29G").truth());
  EXPECT_TRUE(Eval("max(requested_bytes, free_bytes) == requested_bytes").truth());
  EXPECT_TRUE(Eval("abs(free_bytes - requested_bytes) > 1G").truth());
  EXPECT_EQ(Eval("ceil(requested_bytes / free_bytes)").number, 205);  // 204.5x
  EXPECT_EQ(Eval("floor(requested_bytes / free_bytes)").number, 204);
  EXPECT_EQ(Eval("ceil(requested_bytes / 16G)").number, 2);
  EXPECT_NEAR(Eval("sqrt(free_bytes / requested_bytes)").number, 0.0699, 0.0001);  // 1 / sqrt(204.5)
  EXPECT_FALSE(Eval("sqrt(-(requested_bytes / free_bytes))").present);
  EXPECT_TRUE(Eval("-(free_bytes) < 0").truth());
}

TEST_F(ExprTest, AbsentFactsNeverFire) {
  Set("requested_bytes", "1G");
  EXPECT_FALSE(Eval("requested_bytes > free_bytes").present);
  EXPECT_FALSE(Eval("not (requested_bytes > free_bytes)").present);
  EXPECT_FALSE(Eval("requested_bytes > free_bytes and true").present);
  EXPECT_TRUE(Eval("requested_bytes > free_bytes or true").truth());
  EXPECT_FALSE(Eval("requested_bytes > free_bytes and false").truth());
  EXPECT_TRUE(Eval("has(requested_bytes) and not has(free_bytes)").truth());
}

TEST_F(ExprTest, DivisionByZeroIsAbsent) {
  Set("requested_bytes", "1G");
  Set("free_bytes", "0B");
  EXPECT_FALSE(Eval("requested_bytes / free_bytes").present);
  EXPECT_FALSE(Eval("requested_bytes / free_bytes > 2").present);
}

TEST_F(ExprTest, ErrorsSayWhatAndWhere) {
  EXPECT_EQ(ParseError("requested_bytes > bogus_bytes"),
            "unknown fact 'bogus_bytes' (see 'oomlens rules facts' for the list) @18");
  EXPECT_EQ(ParseError("requested_bytes + request_to_free_ratio"), "cannot add a number to a size @39");
  EXPECT_EQ(ParseError("requested_bytes >"), "expression ends too early @17");
  EXPECT_EQ(ParseError("has(bogus)"), "has() needs a fact name, got 'bogus' @4");
  EXPECT_EQ(ParseError("program > 1"), "cannot compare a text fact with a number @11");
  EXPECT_EQ(ParseError("frobnicate(1)"),
            "unknown function 'frobnicate' (functions: has, phase, min, max, abs, ceil, floor, sqrt) @0");
  EXPECT_EQ(ParseError("sqrt(free_bytes)"), "sqrt() needs a number (a ratio of two sizes), not a size @16");
  EXPECT_EQ(ParseError("requested_bytes * free_bytes"), "cannot multiply two sizes @28");
  EXPECT_EQ(ParseError("(requested_bytes > 1G"), "expected ')' @21");
  EXPECT_EQ(ParseError("requested_bytes > 1Q"), "bad size literal: '1Q' has an unknown size unit 'Q' @18");
  EXPECT_EQ(ParseError("requested_bytes and true"), "'and' needs conditions on both sides @24");
}

// Found by expr_fuzzer: "-((((...-(" recursed until the stack overflowed.
TEST_F(ExprTest, DeepNestingIsAnErrorNotAStackOverflow) {
  std::string deep = "-" + std::string(100000, '(') + "-(";
  std::string error = ParseError(deep);
  EXPECT_EQ(error.substr(0, 52), "expression nested too deeply (more than 64 levels) @");
  EXPECT_TRUE(
      Eval(std::string(30, '(') + "1 < 2" + std::string(30, ')')).truth());  // reasonable nesting works
  EXPECT_EQ(ParseError(std::string(200, '-') + "1").substr(0, 28), "expression nested too deeply");
  std::string nots;
  for (int i = 0; i < 100; ++i) nots += "not ";
  EXPECT_EQ(ParseError(nots + "true").substr(0, 28), "expression nested too deeply");
}

TEST(Template, RendersPartsAndFormats) {
  std::string error;
  size_t offset = 0;
  auto t = Template::Parse("{requested_bytes} is {requested_bytes / free_bytes:ratio} of free, {{literal}}",
                           &error, &offset);
  ASSERT_TRUE(t) << error;
  Facts facts;
  std::string e;
  MakeFact(*FindFact("requested_bytes"), "3G", &facts["requested_bytes"], &e);
  MakeFact(*FindFact("free_bytes"), "2G", &facts["free_bytes"], &e);
  auto lookup = [&facts](const std::string& n) -> const FactValue* {
    auto it = facts.find(n);
    return it == facts.end() ? nullptr : &it->second;
  };
  std::string out;
  ASSERT_TRUE(t->Render(lookup, &out));
  EXPECT_EQ(out, "3.00G is 1.50x of free, {literal}");
  facts.erase("free_bytes");
  EXPECT_FALSE(t->Render(lookup, &out));  // never prints a number the log did not give
}

// Attack review W10: integers the log printed keep every digit (a double holds 53
// bits), and a computed figure beyond 64 bits is printed, not wrapped around.
TEST(Template, IntegersKeepTheirDigitsAndHugeFiguresDoNotWrap) {
  Facts facts;
  std::string e;
  ASSERT_TRUE(MakeFact(*FindFact("max_seq_len"), "123456789012345678", &facts["max_seq_len"], &e)) << e;
  ASSERT_TRUE(MakeFact(*FindFact("kv_cache_tokens"), "9223372036854775807", &facts["kv_cache_tokens"], &e))
      << e;
  auto lookup = [&facts](const std::string& n) -> const FactValue* {
    auto it = facts.find(n);
    return it == facts.end() ? nullptr : &it->second;
  };
  auto render = [&](const char* text) {
    std::string error, out;
    size_t offset = 0;
    auto t = Template::Parse(text, &error, &offset);
    EXPECT_TRUE(t) << error;
    if (t) {
      EXPECT_TRUE(t->Render(lookup, &out)) << text;
    }
    return out;
  };
  EXPECT_EQ(render("{max_seq_len:int} {max_seq_len} {max_seq_len:num}"),
            "123456789012345678 123456789012345678 123456789012345678");
  EXPECT_EQ(render("{kv_cache_tokens:int} {-max_seq_len:int}"), "9223372036854775807 -123456789012345678");
  EXPECT_EQ(render("{kv_cache_tokens * 1000:int}"), "9.22e+21");  // computed: no wrap to a negative
  EXPECT_EQ(FormatComputedSize(7.0 * 1152921504606846976.0 * 2), "14.00E");
  EXPECT_EQ(FormatComputedSize(-1536), "-1.50K");
}

// Attack review W9: a tip's target share that rounds to 0% is refused by RenderTip
// (the tip goes to "also consider"); a share it asks to cut *by* prints "<0.1%".
TEST(Template, ASharePrintsAsPctAndAZeroTargetIsNoRoom) {
  Facts facts;
  std::string e;
  MakeFact(*FindFact("requested_bytes"), "4.00 GiB", &facts["requested_bytes"], &e);
  MakeFact(*FindFact("free_bytes"), "0 bytes", &facts["free_bytes"], &e);
  MakeFact(*FindFact("allocated_bytes"), "22.90 GiB", &facts["allocated_bytes"], &e);
  auto lookup = [&facts](const std::string& n) -> const FactValue* {
    auto it = facts.find(n);
    return it == facts.end() ? nullptr : &it->second;
  };
  std::string error, out;
  size_t offset = 0;
  auto target =
      Template::Parse("a batch at most {free_bytes / requested_bytes:share} of this one", &error, &offset);
  ASSERT_TRUE(target) << error;
  bool no_room = false;
  EXPECT_FALSE(target->RenderTip(lookup, &out, &no_room));
  EXPECT_TRUE(no_room);
  EXPECT_TRUE(target->Render(lookup, &out));  // as evidence it is a figure like any other
  EXPECT_EQ(out, "a batch at most 0% of this one");
  auto cut = Template::Parse("cut by {(requested_bytes / 1000) / allocated_bytes:pct}", &error, &offset);
  ASSERT_TRUE(cut) << error;
  EXPECT_TRUE(cut->RenderTip(lookup, &out, &no_room));
  EXPECT_FALSE(no_room);
  EXPECT_EQ(out, "cut by <0.1%");
  auto pieces = Template::Parse("{ceil(requested_bytes / free_bytes):int} pieces", &error, &offset);
  ASSERT_TRUE(pieces) << error;
  EXPECT_FALSE(pieces->Render(lookup, &out));  // a division by zero is no number to print
}

TEST(Template, ParseErrorsPointAtTheProblem) {
  std::string error;
  size_t offset = 0;
  EXPECT_FALSE(Template::Parse("short by {requested_bytes", &error, &offset));
  EXPECT_EQ(error, "unclosed '{' (write '{{' for a brace)");
  EXPECT_EQ(offset, 9u);
  EXPECT_FALSE(Template::Parse("{free_bytes:kg}", &error, &offset));
  EXPECT_EQ(error, "unknown format ':kg' (formats: size, ratio, pct, share, num, int)");
  EXPECT_FALSE(Template::Parse("{free_bytes +}", &error, &offset));
  EXPECT_EQ(error, "expression ends too early");
  EXPECT_EQ(offset, 13u);
}

// The functions an unknown call lists (from the one table in expr.cc) are the
// functions expr.h documents, and each of them parses.
TEST(ExprFunctions, TheErrorTheHeaderAndTheParserAgree) {
  std::string error;
  size_t offset = 0;
  ASSERT_EQ(Expr::Parse("nosuch(1)", &error, &offset), nullptr);
  size_t open = error.find("(functions: ");
  ASSERT_NE(open, std::string::npos) << error;
  std::string list = error.substr(open + 12, error.find(')', open) - open - 12);
  std::ifstream header(std::string(OOMLENS_SOURCE_DIR) + "/src/core/rules/expr.h");
  std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
  std::string documented =
      text.substr(text.find("// Functions:"),
                  text.find("\n//", text.find("// Functions:") + 1) - text.find("// Functions:"));
  std::stringstream names(list);
  std::string name;
  int count = 0;
  while (std::getline(names, name, ',')) {
    name.erase(0, name.find_first_not_of(' '));
    ++count;
    EXPECT_NE(documented.find(name + "("), std::string::npos)
        << name << "() is not in expr.h's list: " << documented;
    if (name == "has" || name == "phase") continue;
    std::string src =
        name == "min" || name == "max" ? name + "(1, 2)" : name + "(requested_bytes / free_bytes)";
    EXPECT_NE(Expr::Parse(src, &error, &offset), nullptr) << src << ": " << error;
  }
  EXPECT_EQ(count, 8);
}

// phase(...) tests the incident's derived fact "phase"; without one it is unknown.
TEST(ExprFunctions, PhaseHoldsForTheNamedPhases) {
  std::string error;
  size_t offset = 0;
  auto expr = Expr::Parse("phase(eval, checkpoint) and requested_bytes > 1G", &error, &offset);
  ASSERT_NE(expr, nullptr) << error;
  Facts facts;
  facts["requested_bytes"] = SizeValue(2LL << 30);
  auto lookup = [&facts](const std::string& name) -> const FactValue* {
    auto it = facts.find(name);
    return it == facts.end() ? nullptr : &it->second;
  };
  EXPECT_FALSE(expr->Evaluate(lookup).truth()) << "no phase: unknown";
  facts["phase"] = TextValue("checkpoint");
  EXPECT_TRUE(expr->Evaluate(lookup).truth());
  facts["phase"] = TextValue("step");
  EXPECT_FALSE(expr->Evaluate(lookup).truth());
  auto unknown = Expr::Parse("phase(unknown)", &error, &offset);
  ASSERT_NE(unknown, nullptr) << error;
  facts.erase("phase");
  EXPECT_TRUE(unknown->Evaluate(lookup).truth());
  EXPECT_EQ(Expr::Parse("phase(evaluation)", &error, &offset), nullptr);
  EXPECT_NE(error.find("phase() needs phase names"), std::string::npos) << error;
  EXPECT_EQ(offset, 6u);
}

}  // namespace
}  // namespace oomlens
