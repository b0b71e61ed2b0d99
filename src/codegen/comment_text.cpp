#include "appell/codegen/comment_text.hpp"

#include <cstdint>
#include <cstdio>

#include "appell/model/utf8.hpp"

namespace appell::codegen {

namespace {

std::string hex(const char* format, std::uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, format, static_cast<unsigned>(value));
  return buffer;
}

}  // namespace

std::string comment_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (byte >= 0x80) {
      char32_t code_point = 0;
      if (const std::size_t length = model::utf8_sequence_at(text, i, &code_point); length != 0) {
        out += hex("<U+%04X>", code_point);
        i += length - 1;
      } else {
        out += hex("<0x%02X>", byte);
      }
    } else if (byte < 0x20 || byte == 0x7F) {
      out += hex("<U+%04X>", byte);
    } else if (c == '\\') {
      out += "<backslash>";
    } else if ((c == '*' && next == '/') || (c == '/' && next == '*') ||
               (c == '?' && next == '?')) {
      // Split the pair; the second character is written on the next round, so that "*/*" or
      // "???" are split at every pair.
      out += c;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace appell::codegen
