// Whether the tests run in the sanitizer build (docs/development.md; CMake defines APPELL_SANITIZE
// for it). Its programs run several times slower, so tests that measure speed skip the measure.
#pragma once

namespace appell::test_support {

#ifdef APPELL_SANITIZE
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif

}  // namespace appell::test_support
