// Free text in generated code: the one door through which anything a model file says (its name,
// its file's name, a parameter's expression) reaches C or C++ other than as a validated identifier
// or a number.
//
// Generated code is compiled and loaded in-process by the JIT (and by users, from `codegen`), so a
// model name that closes a comment could put any code there: `*/ __attribute__((constructor)) ...`.
// Text written through comment_text() is inert in both kinds of comment, in C and C++, with or
// without trigraphs: no line break can end a `//` comment early, no `*/` can end a `/* */` one, no
// backslash can splice the next line into a comment, and no `??/` can become one.
#pragma once

#include <string>
#include <string_view>

namespace appell::codegen {

/// `text` as it may stand inside a `/* ... */` or `// ...` comment, on one line: printable ASCII
/// is kept except that `*/` and `/*` become `* /` and `/ *`, `??` becomes `? ?` and a backslash
/// becomes `<backslash>`; line breaks, other control characters and non-ASCII characters are
/// written as `<U+XXXX>` (valid UTF-8) or `<0xXX>` (any other byte). Deterministic and readable:
/// an ordinary name comes out unchanged.
std::string comment_text(std::string_view text);

}  // namespace appell::codegen
