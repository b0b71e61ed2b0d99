// Whether the JIT can compile here: tests of compiled code skip (with a reason) without one.
#pragma once

#include "appell/numeric/native_library.hpp"

namespace appell::test_support {

/// True when the C compiler the JIT would use ($CC, else cc) is found and answers --version.
inline bool have_compiler() {
  try {
    num::native_library_key("int x;", {});
    return true;
  } catch (const num::NativeCompileError&) {
    return false;
  }
}

}  // namespace appell::test_support
