#include "utf8.hpp"

#include "appell/model/utf8.hpp"

namespace appell::io::detail {

std::size_t invalid_utf8_at(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = model::utf8_sequence_at(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

// printable() is in terminal_text.cpp: the one rule for showing text (io::terminal_text).

}  // namespace appell::io::detail
