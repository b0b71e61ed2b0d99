// Checking that text read from a file is UTF-8 before it becomes a name: names reach JSON output
// (nlohmann::json refuses to write a string that is not UTF-8) and every terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace appell::io::detail {

/// The offset of the first byte of `text` that does not belong to a well-formed UTF-8 sequence
/// (RFC 3629: no overlong form, no surrogate, nothing beyond U+10FFFF), or npos if there is none.
std::size_t invalid_utf8_at(std::string_view text);

/// `text` for a message: at most `limit` bytes (then "..."), shown as io::terminal_text() shows
/// it with line breaks escaped too (a byte of an ill-formed sequence or a C0 control as \xHH, DEL
/// and the C1 controls as \u007F..\u009F), so that the message itself is one line of UTF-8.
std::string printable(std::string_view text, std::size_t limit = 60);

}  // namespace appell::io::detail
