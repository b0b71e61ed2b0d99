#include "utf8.hpp"

#include <cstdio>

namespace appell::io::detail {

namespace {

/// The length of the well-formed UTF-8 sequence at `i`, or 0 if there is none.
std::size_t sequence_at(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong form
    if (lead == 0xED) high = 0x9F;  // no surrogate
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong form
    if (lead == 0xF4) high = 0x8F;  // nothing beyond U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

}  // namespace

std::size_t invalid_utf8_at(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = sequence_at(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

std::string printable(std::string_view text, std::size_t limit) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size() && i < limit) {
    const std::size_t length = sequence_at(text, i);
    const auto lead = static_cast<unsigned char>(text[i]);
    if (length == 0 || lead < 0x20 || lead == 0x7F) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", lead);
      out += escaped;
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  if (i < text.size()) out += "...";
  return out;
}

}  // namespace appell::io::detail
