#include "xml_bounds.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "appell/model/source_location.hpp"
#include "utf8.hpp"

namespace appell::io::detail {

namespace {

using model::ModelError;
using model::SourceLocation;

// -- characters as TinyXML 2.6.2 classifies them (UTF-8 mode, the C locale) --------------------

bool is_white(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
bool is_letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(unsigned char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
// TinyXML takes every byte from 127 up for a letter (it cannot tell Unicode letters).
bool is_alpha(unsigned char c) { return c >= 127 || is_letter(c); }
bool is_alnum(unsigned char c) { return c >= 127 || is_letter(c) || is_digit(c); }

/// Where `offset` is, as TinyXML's TiXmlParsingData::Stamp counts it (so that these locations
/// agree with those of the elements TinyXML reads): lines end at \n, \r, \r\n or \n\r; a tab
/// moves to the next multiple of 4; a UTF-8 character is one column, a byte order mark (and
/// U+FFFE, U+FFFF) none.
SourceLocation tinyxml_location(std::string_view text, std::size_t offset,
                                const std::string& file) {
  int row = 0, col = 0;
  std::size_t p = 0;
  const auto at = [&](std::size_t i) { return i < text.size() ? (unsigned char)text[i] : 0u; };
  while (p < offset && p < text.size()) {
    const unsigned char c = at(p);
    if (c == '\r' || c == '\n') {
      ++row;
      col = 0;
      ++p;
      if (at(p) == (c == '\r' ? '\n' : '\r')) ++p;
    } else if (c == '\t') {
      ++p;
      col = (col / 4 + 1) * 4;
    } else if (c == 0xEF && at(p + 1) && at(p + 2)) {
      const bool zero_width = (at(p + 1) == 0xBB && at(p + 2) == 0xBF) ||
                              (at(p + 1) == 0xBF && (at(p + 2) == 0xBE || at(p + 2) == 0xBF));
      p += 3;
      if (!zero_width) ++col;
    } else {
      p += c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
      ++col;
    }
  }
  return SourceLocation{file, row + 1, col + 1};
}

/// The scan. Positions are byte offsets into the text; `end` is its first NUL (TinyXML reads a C
/// string). Open elements are kept on a vector, never on the call stack.
class XmlScan {
 public:
  XmlScan(std::string_view text, const std::string& file, const std::string& what)
      : text_(text.substr(0, text.find('\0'))), file_(file), what_(what) {}

  void run() {
    std::size_t p = 0;
    while (true) {
      p = skip_white(p);
      if (open_.empty()) {
        // The document: TinyXML reads nodes while the next one starts with '<' and ignores
        // whatever follows (nothing of it is ever parsed). A text with no node at all is its
        // "document empty".
        if (at(p) != '<') return;
        p = markup(p);
        if (p == kStop) return;
        continue;
      }
      // The content of the innermost open element (TiXmlElement::ReadValue).
      if (p >= end()) fail_unclosed();
      if (at(p) != '<') {
        p = text_node(p);
      } else if (starts_with(p, "</")) {
        p = end_tag(p);
      } else {
        p = markup(p);
        if (p == kStop) fail_unclosed();
      }
    }
  }

 private:
  static constexpr std::size_t kStop = std::string_view::npos;

  struct Open {
    std::size_t start;  // its '<'
    std::string_view name;
  };

  std::size_t end() const { return text_.size(); }
  unsigned char at(std::size_t i) const { return i < text_.size() ? (unsigned char)text_[i] : 0; }
  bool starts_with(std::size_t p, std::string_view s) const {
    return text_.substr(std::min(p, end())).starts_with(s);
  }
  bool starts_with_any_case(std::size_t p, std::string_view s) const {
    for (std::size_t k = 0; k < s.size(); ++k) {
      const unsigned char c = at(p + k);
      if (c == 0 || (c | 0x20) != (unsigned char)(s[k] | 0x20)) return false;
    }
    return true;
  }

  // -- failures ----------------------------------------------------------------------------------

  [[noreturn]] void fail(std::size_t at, const std::string& message,
                         std::string_view offending = "") const {
    throw ModelError(tinyxml_location(text_, at, file_), message,
                     offending.empty() ? "" : printable(offending));
  }
  std::string where(std::size_t at) const {
    const SourceLocation l = tinyxml_location(text_, at, file_);
    return "line " + std::to_string(l.line) + ", column " + std::to_string(l.column);
  }
  std::string tag(std::string_view name) const { return "<" + printable(name) + ">"; }

  [[noreturn]] void fail_unclosed() const {
    const Open& open = open_.back();
    fail(open.start,
         "malformed XML: the file ends before " + tag(open.name) + " is closed (no </" +
             printable(open.name) + ">)",
         open.name);
  }
  /// The text ends inside markup that starts at `start`: the end of the document after the
  /// root element (TinyXML reads no more), an error inside an element.
  std::size_t ends_inside(std::size_t start, const std::string& what) const {
    if (open_.empty()) return kStop;
    fail(start, "malformed XML: the file ends inside " + what + " that starts here, in " +
                    tag(open_.back().name));
  }

  // -- bounds ------------------------------------------------------------------------------------

  void count_node(std::size_t at, std::string_view name) {
    if (++nodes_ <= kXmlNodeBudget) return;
    if (name.empty() && !open_.empty()) name = open_.back().name;
    fail(at,
         "the " + what_ + " holds more than " + std::to_string(kXmlNodeBudget) +
             " XML nodes (elements, attributes, text and comments)",
         name);
  }

  // -- what TinyXML's pieces read ----------------------------------------------------------------

  /// TiXmlBase::SkipWhiteSpace: white space and byte order marks (U+FEFF, U+FFFE, U+FFFF).
  std::size_t skip_white(std::size_t p) const {
    while (p < end()) {
      if (at(p) == 0xEF && ((at(p + 1) == 0xBB && at(p + 2) == 0xBF) ||
                            (at(p + 1) == 0xBF && (at(p + 2) == 0xBE || at(p + 2) == 0xBF))))
        p += 3;
      else if (is_white(at(p)))
        ++p;
      else
        break;
    }
    return p;
  }

  /// TiXmlBase::ReadName: a letter or '_', then letters, digits, '_', '-', '.', ':'. kStop if none.
  std::size_t name_end(std::size_t p) const {
    if (!(is_alpha(at(p)) || at(p) == '_')) return kStop;
    while (p < end() &&
           (is_alnum(at(p)) || at(p) == '_' || at(p) == '-' || at(p) == '.' || at(p) == ':'))
      ++p;
    return p;
  }

  /// TiXmlBase::GetEntity at '&': a numeric reference "&#..." or "&#x..." runs to the next ';'
  /// wherever it is, and is read back from there to its '#' (or 'x'): TinyXML continues after that
  /// ';', skipping whatever lies between (quotes, tags). Any other '&' is one character. The
  /// character must be one UTF-8 can write: TinyXML writes a surrogate (&#xD800;) or a number
  /// beyond U+10FFFF as bytes that are not UTF-8, and &#0; as a NUL in a name.
  std::size_t reference_end(std::size_t p) const {
    if (at(p + 1) != '#' || at(p + 2) == 0) return p + 1;
    const bool hex = at(p + 2) == 'x';
    const std::size_t semicolon = text_.find(';', p + (hex ? 3 : 2));
    const auto shown = [&] {
      return text_.substr(p,
                          std::min<std::size_t>(semicolon == kStop ? 12 : semicolon + 1 - p, 12));
    };
    std::size_t first = semicolon;  // the first digit
    while (semicolon != kStop && at(first - 1) != (hex ? 'x' : '#')) {
      --first;
      if (!(hex ? is_hex_digit(at(first)) : is_digit(at(first))))
        fail(p,
             "malformed XML: a character reference is &#DIGITS; or &#xHEX; (read up to the next "
             "';')",
             shown());
    }
    if (semicolon == kStop) fail(p, "malformed XML: a character reference &# has no ';'", shown());
    std::uint32_t code = 0;  // held above U+10FFFF once beyond it
    for (std::size_t i = first; i < semicolon; ++i) {
      const unsigned char c = at(i);
      const std::uint32_t digit = is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
      code = std::min<std::uint32_t>(code * (hex ? 16 : 10) + digit, 0x110000);
    }
    if (code == 0 || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF)
      fail(p,
           "malformed XML: a character reference is a Unicode character: not 0, not a surrogate "
           "(U+D800 .. U+DFFF), at most U+10FFFF",
           shown());
    return semicolon + 1;
  }

  /// A node that starts with '<' (TiXmlNode::Identify, then the node's Parse). Returns where it
  /// ends, or kStop where TinyXML's document stops without an error (the end of the text).
  std::size_t markup(std::size_t p) {
    if (starts_with_any_case(p, "<?xml")) return declaration(p);
    if (starts_with(p, "<!--")) {
      count_node(p, "");
      const std::size_t close = text_.find("-->", p + 4);
      if (close == kStop) return ends_inside(p, "a comment <!--");
      return close + 3;
    }
    if (starts_with(p, "<![CDATA[")) {
      count_node(p, "");
      const std::size_t close = text_.find("]]>", p + 9);
      if (close == kStop) return ends_inside(p, "a CDATA section <![CDATA[");
      return close + 3;
    }
    if (is_alpha(at(p + 1)) || at(p + 1) == '_') return start_tag(p);
    // TiXmlUnknown: "<!DOCTYPE ...>", "<?other ...>", "< ..." read to the first '>'.
    count_node(p, "");
    const std::size_t close = text_.find('>', p + 1);
    return close == kStop ? kStop : close + 1;
  }

  /// TiXmlDeclaration::Parse: words up to '>', of which version, encoding and standalone are read
  /// as attributes. TinyXML's document ends without an error where it cannot read them.
  std::size_t declaration(std::size_t p) {
    count_node(p, "");
    const std::size_t start = p;
    p += 5;
    while (p < end()) {
      if (at(p) == '>') return p + 1;
      p = skip_white(p);
      if (starts_with_any_case(p, "version") || starts_with_any_case(p, "encoding") ||
          starts_with_any_case(p, "standalone")) {
        const std::size_t after = attribute(p, "?xml");
        if (after == kStop)
          fail(start, "malformed XML: the declaration <?xml ...?> cannot be read", "?xml");
        p = after;
      } else {
        while (p < end() && at(p) != '>' && !is_white(at(p))) ++p;
      }
    }
    return kStop;
  }

  /// TiXmlAttribute::Parse at the attribute's name: NAME = "VALUE", 'VALUE' or VALUE (unquoted,
  /// to white space, '/' or '>'). Returns where it ends, or kStop where TinyXML fails (refused by
  /// the caller); an unterminated quoted value is refused here, since TinyXML would read past the
  /// end of the text.
  std::size_t attribute(std::size_t p, std::string_view element) {
    const std::size_t name = name_end(p);
    if (name == kStop || name >= end()) return kStop;
    std::size_t q = skip_white(name);
    if (at(q) != '=') return kStop;
    q = skip_white(q + 1);
    if (q >= end()) return kStop;
    const unsigned char quote = at(q);
    if (quote == '"' || quote == '\'') {
      for (++q;;) {
        if (q >= end())
          fail(p,
               "malformed XML: the value of attribute '" + printable(text_.substr(p, name - p)) +
                   "' of " + tag(element) + " never ends: its " + (quote == '"' ? "\"" : "'") +
                   " at " + where(skip_white(skip_white(name) + 1)) + " is not closed",
               text_.substr(p, name - p));
        if (at(q) == quote) return q + 1;
        q = at(q) == '&' ? reference_end(q) : q + 1;
      }
    }
    while (q < end() && !is_white(at(q)) && at(q) != '/' && at(q) != '>') {
      if (at(q) == '"' || at(q) == '\'') return kStop;
      ++q;
    }
    return q;
  }

  /// TiXmlElement::Parse up to the end of its start tag: "<NAME ATTRIBUTES>" opens the element,
  /// "<NAME ATTRIBUTES/>" is all of it.
  std::size_t start_tag(std::size_t start) {
    std::size_t p = skip_white(start + 1);
    const std::size_t name_stop = name_end(p);
    if (name_stop == kStop) fail(start, "malformed XML: '<' is not followed by an element's name");
    const std::string_view name = text_.substr(p, name_stop - p);
    count_node(start, name);
    if (open_.size() + 1 > kXmlDepthLimit)
      fail(start,
           "the " + what_ + " nests deeper than " + std::to_string(kXmlDepthLimit) +
               " levels of elements",
           name);
    // Each attribute's name and where it is, to find one given twice (TinyXML stops there).
    std::unordered_map<std::string_view, std::size_t> attributes;
    p = name_stop;
    while (true) {
      p = skip_white(p);
      if (p >= end())
        fail(start, "malformed XML: the file ends inside the start tag " + tag(name), name);
      if (at(p) == '/') {
        if (at(p + 1) != '>')
          fail(p, "malformed XML: '/' in " + tag(name) + " is not followed by '>'", name);
        return p + 2;
      }
      if (at(p) == '>') {
        open_.push_back({start, name});
        return p + 1;
      }
      const std::size_t after = attribute(p, name);
      if (after == kStop)
        fail(p, "malformed XML: expected an attribute NAME=\"VALUE\", '>' or '/>' in " + tag(name),
             name);
      const std::string_view attribute_name = text_.substr(p, name_end(p) - p);
      count_node(p, name);
      if (attributes.size() + 1 > kXmlAttributeLimit)
        fail(p,
             "the element " + tag(name) + " has more than " + std::to_string(kXmlAttributeLimit) +
                 " attributes",
             name);
      if (const auto [first, added] = attributes.emplace(attribute_name, p); !added)
        fail(p,
             "malformed XML: attribute '" + printable(attribute_name) + "' of " + tag(name) +
                 " is given twice (first at " + where(first->second) + ")",
             attribute_name);
      p = after;
    }
  }

  /// "</NAME>" exactly (TinyXML allows no white space in it) closes the innermost element.
  std::size_t end_tag(std::size_t p) {
    const Open& open = open_.back();
    const std::string close = "</" + std::string(open.name) + ">";
    if (!starts_with(p, close)) {
      const std::size_t stop = name_end(p + 2);
      const std::string written =
          stop == kStop ? "</" : "</" + printable(text_.substr(p + 2, stop - p - 2)) + ">";
      fail(p,
           "malformed XML: " + written + " where </" + printable(open.name) + "> should close " +
               tag(open.name) + " (opened at " + where(open.start) + ")",
           open.name);
    }
    open_.pop_back();
    return p + close.size();
  }

  /// TiXmlText: text up to the next '<', through its character references.
  std::size_t text_node(std::size_t p) {
    count_node(p, "");
    while (p < end() && at(p) != '<') p = at(p) == '&' ? reference_end(p) : p + 1;
    return p;
  }

  std::string_view text_;
  const std::string& file_;
  const std::string& what_;
  std::vector<Open> open_;
  std::size_t nodes_ = 0;
};

}  // namespace

void check_xml_text(std::string_view text, const std::string& file, const std::string& what) {
  XmlScan(text, file, what).run();
}

}  // namespace appell::io::detail
