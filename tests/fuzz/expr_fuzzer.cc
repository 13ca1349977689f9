// Fuzzes the expression language and templates: parse, then evaluate on facts.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/rules/expr.h"
#include "core/rules/template.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  std::string src(reinterpret_cast<const char*>(data), size);
  oomlens::Facts facts;
  std::string error;
  oomlens::MakeFact(*oomlens::FindFact("requested_bytes"), "29.49G", &facts["requested_bytes"], &error);
  oomlens::MakeFact(*oomlens::FindFact("free_bytes"), "0B", &facts["free_bytes"], &error);
  oomlens::MakeFact(*oomlens::FindFact("program"), "jit_step", &facts["program"], &error);
  auto lookup = [&facts](const std::string& n) -> const oomlens::FactValue* {
    auto it = facts.find(n);
    return it == facts.end() ? nullptr : &it->second;
  };
  size_t offset = 0;
  if (auto expr = oomlens::Expr::Parse(src, &error, &offset)) (void)expr->Evaluate(lookup);
  if (auto t = oomlens::Template::Parse(src, &error, &offset)) {
    std::string out;
    (void)t->Render(lookup, &out);
  }
  return 0;
}
