// The frame that owns an allocation, from a stack an allocator recorded (PyTorch's
// snapshot, JAX's device memory profile): the innermost frame of the program's own
// code, not C++ and not the framework's own modules.
#ifndef OOMLENS_CORE_RECOGNIZE_FRAMES_H_
#define OOMLENS_CORE_RECOGNIZE_FRAMES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace oomlens {

struct StackFrame {
  std::string_view file;
  int64_t line = -1;  ///< -1: not recorded
  std::string_view name;
};

/// "models/llama.py:120 forward": the innermost frame of the program's own code
/// (a package's path starts after site-packages/); failing that the innermost
/// Python frame, then the innermost frame. Empty for an empty stack.
std::string OwnerOf(const std::vector<StackFrame>& innermost_first);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RECOGNIZE_FRAMES_H_
