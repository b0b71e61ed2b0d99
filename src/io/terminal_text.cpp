#include "appell/io/terminal_text.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "appell/model/utf8.hpp"
#include "utf8.hpp"

namespace appell::io {

namespace {

bool plain(unsigned char c, bool keep_breaks) {
  return (c >= 0x20 && c < 0x7F) || (keep_breaks && (c == '\n' || c == '\t'));
}

void append_escape(std::string& out, const char* format, unsigned value) {
  char escaped[8];
  std::snprintf(escaped, sizeof escaped, format, value);
  out += escaped;
}

// Whether `tail` (shorter than a whole sequence) may still become a well-formed UTF-8 sequence
// when more bytes come: the same ranges as model::utf8_sequence_at.
bool may_complete(std::string_view tail) {
  const auto lead = static_cast<unsigned char>(tail[0]);
  const std::size_t length = lead >= 0xC2 && lead <= 0xDF   ? 2
                             : lead >= 0xE0 && lead <= 0xEF ? 3
                             : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                            : 0;
  if (length == 0 || tail.size() >= length) return false;
  for (std::size_t k = 1; k < tail.size(); ++k) {
    const auto b = static_cast<unsigned char>(tail[k]);
    unsigned char low = 0x80, high = 0xBF;
    if (k == 1) {
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    }
    if (b < low || b > high) return false;
  }
  return true;
}

// Appends `text` shown as terminal_text() says; with `hold_tail`, an incomplete sequence at the
// end that more bytes may complete is left out. Returns the bytes consumed.
std::size_t append_visible(std::string& out, std::string_view text, bool keep_breaks,
                           bool hold_tail) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (plain(c, keep_breaks)) {
      std::size_t end = i + 1;  // a run of plain bytes at once: the usual case
      while (end < text.size() && plain(static_cast<unsigned char>(text[end]), keep_breaks)) ++end;
      out.append(text.substr(i, end - i));
      i = end;
      continue;
    }
    if (c < 0x20) {
      append_escape(out, "\\x%02X", c);
      ++i;
      continue;
    }
    char32_t code_point = 0;
    const std::size_t length = model::utf8_sequence_at(text, i, &code_point);
    if (length == 0) {
      if (hold_tail && may_complete(text.substr(i))) return i;
      append_escape(out, "\\x%02X", c);
      ++i;
    } else if (code_point >= 0x7F && code_point <= 0x9F) {
      append_escape(out, "\\u%04X", static_cast<unsigned>(code_point));
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return i;
}

}  // namespace

std::string terminal_text(std::string_view text, LineBreaks breaks) {
  std::string out;
  out.reserve(text.size());
  append_visible(out, text, breaks == LineBreaks::Keep, false);
  return out;
}

namespace detail {

std::string printable(std::string_view text, std::size_t limit) {
  // Whole sequences up to `limit` bytes, so that the cut never splits a character.
  std::size_t end = 0;
  while (end < text.size() && end < limit) {
    const std::size_t length = model::utf8_sequence_at(text, end);
    end += length == 0 ? 1 : length;
  }
  end = std::min(end, text.size());
  std::string out = terminal_text(text.substr(0, end), LineBreaks::Escape);
  if (end < text.size()) out += "...";
  return out;
}

}  // namespace detail

TerminalTextBuffer::~TerminalTextBuffer() { release(); }

void TerminalTextBuffer::release() {
  if (pending_.empty()) return;
  const std::string rest = terminal_text(pending_, LineBreaks::Keep);
  pending_.clear();
  write(rest);
}

bool TerminalTextBuffer::write(std::string_view text) {
  if (text.empty()) return true;
  errno = 0;
  const auto size = static_cast<std::streamsize>(text.size());
  if (target_->sputn(text.data(), size) == size) return true;
  if (write_error_ == 0) write_error_ = errno != 0 ? errno : EIO;
  return false;
}

std::streamsize TerminalTextBuffer::xsputn(const char* s, std::streamsize n) {
  std::string_view text(s, static_cast<std::size_t>(n));
  std::string joined;
  if (!pending_.empty()) {
    joined = pending_ + std::string(text);
    pending_.clear();
    text = joined;
  }
  std::string out;
  out.reserve(text.size());
  const std::size_t used = append_visible(out, text, true, true);
  pending_.assign(text.substr(used));
  return write(out) ? n : 0;
}

TerminalTextBuffer::int_type TerminalTextBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
}

int TerminalTextBuffer::sync() {
  // What is held back stays: the rest of its sequence may come with the next write (a stream
  // with unitbuf, std::cerr, flushes between two `<<`).
  errno = 0;
  if (target_->pubsync() != 0) {
    if (write_error_ == 0) write_error_ = errno != 0 ? errno : EIO;
    return -1;
  }
  return 0;
}

}  // namespace appell::io
