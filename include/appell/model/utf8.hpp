// UTF-8 as RFC 3629 defines it, one sequence at a time: what the readers check names with (a name
// that is not UTF-8 is a located error) and what code generation names characters by (free text
// in a comment is written as <U+XXXX>). One decoder for both, so that they never disagree on what
// a well-formed sequence is.
#pragma once

#include <cstddef>
#include <string_view>

namespace appell::model {

/// The length (1 to 4) of the well-formed UTF-8 sequence that starts at byte `i` of `text`, and
/// its code point in `*code_point` when given; 0 when the bytes there are not one (an overlong
/// form, a surrogate, a value beyond U+10FFFF, a stray continuation byte, a cut sequence).
/// Requires i < text.size().
std::size_t utf8_sequence_at(std::string_view text, std::size_t i, char32_t* code_point = nullptr);

}  // namespace appell::model
