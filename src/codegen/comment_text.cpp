#include "appell/codegen/comment_text.hpp"

#include <cstdint>
#include <cstdio>

namespace appell::codegen {

namespace {

std::string hex(const char* format, std::uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, format, static_cast<unsigned>(value));
  return buffer;
}

// The length of the valid UTF-8 sequence at text[i] (2 to 4) and its code point, or 0 when the
// bytes there are not one (overlong forms, surrogates and values above U+10FFFF included).
std::size_t utf8_sequence(std::string_view text, std::size_t i, std::uint32_t& code_point) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  std::uint32_t minimum = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, minimum = 0x80, code_point = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, minimum = 0x800, code_point = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, minimum = 0x10000, code_point = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
    code_point = (code_point << 6) | (byte(i + k) & 0x3Fu);
  }
  if (code_point < minimum || code_point > 0x10FFFF ||
      (code_point >= 0xD800 && code_point <= 0xDFFF))
    return 0;
  return length;
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
      std::uint32_t code_point = 0;
      if (const std::size_t length = utf8_sequence(text, i, code_point); length != 0) {
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
