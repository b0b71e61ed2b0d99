// Text shown on a terminal: a user's text (a model's name, a cell of a CSV file, a path) may
// carry control characters, and a terminal acts on them (ESC starts a sequence that can recolour,
// retitle or rewrite the screen; BEL rings). Whatever appell prints on standard output and
// standard error goes through one rule, terminal_text(), so that such a character is shown, never
// obeyed. Data files (--out, --csv) keep their own formats; JSON printed on standard output stays
// valid JSON with the same strings (see terminal_text()).
#pragma once

#include <streambuf>
#include <string>
#include <string_view>

namespace appell::io {

/// Whether terminal_text() keeps line feeds and tabs (multi-line output) or shows them too (a
/// value inside a one-line message).
enum class LineBreaks { Keep, Escape };

/// `text` with every control character and every byte that is not UTF-8 shown instead of
/// obeyed: the C0 controls (U+0000..U+001F) as \xHH (ESC as \x1B, BEL as \x07; line feed and tab
/// kept with LineBreaks::Keep), DEL and the C1 controls (U+007F..U+009F) as \u007F..\u009F (their
/// code points; JSON's escape too, and JSON writes the C0 controls escaped itself, so JSON goes
/// through unchanged in meaning), and each byte of an ill-formed UTF-8 sequence as \xHH.
/// Everything else, UTF-8 text included, is kept as it is.
std::string terminal_text(std::string_view text, LineBreaks breaks = LineBreaks::Keep);

/// A stream buffer that writes what it is given through terminal_text() (line breaks kept) to
/// `target`, holding nothing back but the first bytes of a UTF-8 sequence that is not complete
/// yet. std::cout and std::cerr write through one each in appell's command line. It records why
/// `target` refused a write (errno then), so that io::check_written can tell a reader that went
/// away (EPIPE) from a full disk.
class TerminalTextBuffer : public std::streambuf {
 public:
  explicit TerminalTextBuffer(std::streambuf* target) : target_(target) {}
  /// Writes what is held back (a sequence never completed: shown as \xHH bytes).
  ~TerminalTextBuffer() override;
  TerminalTextBuffer(const TerminalTextBuffer&) = delete;
  TerminalTextBuffer& operator=(const TerminalTextBuffer&) = delete;

  std::streambuf* target() const { return target_; }
  /// Writes what is held back (a sequence never completed, shown as \xHH bytes): at the end of
  /// the output.
  void release();
  /// errno when `target` first refused a write, else 0.
  int write_error() const { return write_error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool write(std::string_view text);
  std::streambuf* target_;
  std::string pending_;  // the start of a UTF-8 sequence whose other bytes have not come yet
  int write_error_ = 0;
};

}  // namespace appell::io
