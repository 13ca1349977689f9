#include "core/recognize/frames.h"

namespace oomlens {
namespace {

bool EndsWith(std::string_view text, std::string_view end) {
  return text.size() >= end.size() && text.substr(text.size() - end.size()) == end;
}

bool IsNative(std::string_view file) {
  for (std::string_view ext : {".cpp", ".cc", ".cu", ".c", ".h", ".hpp", ".cuh"})
    if (EndsWith(file, ext)) return true;
  return file.empty() || file == "??";
}

// The frameworks whose own frames stand between an allocation and the code that asked for it.
bool InFramework(std::string_view file) {
  for (std::string_view dir : {"torch/", "jax/", "jaxlib/", "flax/", "optax/", "haiku/"}) {
    if (file.rfind(dir, 0) == 0) return true;
    for (size_t at = file.find(dir); at != std::string_view::npos; at = file.find(dir, at + 1))
      if (file[at - 1] == '/') return true;
  }
  return false;
}

bool IsOwnCode(std::string_view file) { return !IsNative(file) && file[0] != '<' && !InFramework(file); }

std::string ShortPath(std::string_view file) {
  for (std::string_view packages : {"site-packages/", "dist-packages/"}) {
    size_t at = file.rfind(packages);
    if (at != std::string_view::npos) return std::string(file.substr(at + packages.size()));
  }
  return std::string(file);
}

std::string Text(const StackFrame& frame) {
  std::string text = frame.file.empty() ? "?" : ShortPath(frame.file);
  if (frame.line >= 0) text += ":" + std::to_string(frame.line);
  if (!frame.name.empty()) text += " " + std::string(frame.name);
  return text;
}

}  // namespace

std::string OwnerOf(const std::vector<StackFrame>& innermost_first) {
  const StackFrame* python = nullptr;
  for (const auto& frame : innermost_first) {
    if (IsOwnCode(frame.file)) return Text(frame);
    if (!python && !IsNative(frame.file)) python = &frame;
  }
  if (python) return Text(*python);
  return innermost_first.empty() ? "" : Text(innermost_first.front());
}

}  // namespace oomlens
