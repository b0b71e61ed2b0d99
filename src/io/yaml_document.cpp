#include "yaml_document.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

#include "appell/model/source_location.hpp"
#include "utf8.hpp"

namespace appell::io::detail {

namespace {

using model::ModelError;
using model::SourceLocation;

/// Thrown by the scan at the first node of a second document (or at its end when it has none):
/// the first document is all that is read.
struct SecondDocument {
  YAML::Mark start, root;
};

// Reads the events of a text's first document and keeps, for every node, the number of nodes and
// the levels it would have with its aliases expanded: a container's are its children's summed (and
// their deepest plus one), an alias's those of its anchor's node, known once that node ended.
class ExpansionScan : public YAML::EventHandler {
 public:
  ExpansionScan(const std::string& file, const std::string& what) : file_(file), what_(what) {}

  /// Where the document's first node is (or where it starts when it has none), once seen.
  const std::optional<YAML::Mark>& root() const { return root_; }
  const std::optional<YAML::Mark>& start() const { return start_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (start_)
      second_start_ = mark;
    else
      start_ = mark;
  }
  void OnDocumentEnd() override {
    if (second_start_) throw SecondDocument{*second_start_, *second_start_};
  }

  void OnAnchor(const YAML::Mark&, const std::string& name) override { anchor_name_ = name; }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    leaf(mark, anchor);
    // Every name, key and expression is a scalar: checked here, none escapes as bytes that
    // are not text.
    if (const std::size_t bad = invalid_utf8_at(value); bad != std::string::npos)
      fail(mark,
           "not UTF-8 text: byte " + std::to_string(bad + 1) + " of this value is " +
               printable(value.substr(bad, 1)) + " (a " + what_ + " is UTF-8)",
           printable(value));
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    seen(mark);
    const Anchored& named = anchored(anchor);
    if (!named.complete)
      fail(mark,
           "this alias is inside the node its anchor names: the " + what_ +
               " would contain itself without end",
           "*" + named.name);
    add(mark, named.size, "*" + named.name);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  /// Nodes and levels (of lists and maps: 0 for a scalar) of a node with its aliases expanded.
  struct Size {
    std::uint64_t nodes = 0;
    std::size_t levels = 0;
  };
  struct Anchored {
    std::string name;
    bool complete = false;
    Size size;
  };
  struct Open {
    YAML::Mark mark;
    YAML::anchor_t anchor;
    Size size;
  };

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message,
                         const std::string& offending) const {
    throw ModelError(SourceLocation{file_, mark.line + 1, mark.column + 1}, message, offending);
  }

  void seen(const YAML::Mark& mark) {
    if (second_start_) throw SecondDocument{*second_start_, mark.is_null() ? *second_start_ : mark};
    if (!root_ && !mark.is_null()) root_ = mark;
  }

  Anchored& anchored(YAML::anchor_t anchor) {
    // yaml-cpp numbers anchors 1, 2, .. in the order they are written.
    if (anchor >= anchors_.size()) anchors_.resize(anchor + 1);
    return anchors_[anchor];
  }

  void name(YAML::anchor_t anchor) {
    if (anchor == YAML::NullAnchor) return;
    anchored(anchor).name = anchor_name_;
  }

  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    seen(mark);
    if (anchor != YAML::NullAnchor) {
      name(anchor);
      Anchored& a = anchored(anchor);
      a.complete = true;
      a.size = {1, 0};
    }
    add(mark, {1, 0}, "");
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    seen(mark);
    name(anchor);
    if (open_.size() + 1 > kYamlDepthLimit)
      fail(mark,
           "the " + what_ + " nests deeper than " + std::to_string(kYamlDepthLimit) + " levels",
           "");
    open_.push_back({mark, anchor, {1, 0}});
  }

  void close() {
    Open node = open_.back();
    open_.pop_back();
    node.size.levels += 1;
    if (node.anchor != YAML::NullAnchor) {
      Anchored& a = anchored(node.anchor);
      a.complete = true;
      a.size = node.size;
    }
    add(node.mark, node.size, "");
  }

  // A child of `size` nodes written at `mark` joins the node that is open (or is the document).
  void add(const YAML::Mark& mark, Size size, const std::string& alias) {
    const bool expanded = !alias.empty();
    if (expanded && open_.size() + size.levels > kYamlDepthLimit)
      fail(mark,
           "this alias nests the " + what_ + " deeper than " + std::to_string(kYamlDepthLimit) +
               " levels once expanded",
           alias);
    if (open_.empty()) return;  // the document's root: it was counted as it grew
    Size& parent = open_.back().size;
    parent.nodes += size.nodes;  // at most twice the budget: both were checked
    parent.levels = std::max(parent.levels, size.levels);
    if (parent.nodes > kYamlNodeBudget)
      fail(mark,
           expanded ? "this alias makes the " + what_ + " larger than " +
                          std::to_string(kYamlNodeBudget) +
                          " nodes once expanded (each alias counts as a copy of what it names)"
                    : "the " + what_ + " holds more than " + std::to_string(kYamlNodeBudget) +
                          " YAML nodes",
           alias);
  }

  std::string file_;
  std::string what_;
  std::optional<YAML::Mark> start_, root_, second_start_;
  std::string anchor_name_;
  std::vector<Anchored> anchors_;
  std::vector<Open> open_;
};

}  // namespace

YAML::Node load_yaml_document(const std::string& text, const std::string& file,
                              const std::string& what) {
  const auto at = [&](const YAML::Mark& mark) {
    return mark.is_null() ? SourceLocation{file, 1, 1}
                          : SourceLocation{file, mark.line + 1, mark.column + 1};
  };
  ExpansionScan scan(file, what);
  std::optional<SecondDocument> second;
  {
    std::istringstream in(text);
    YAML::Parser parser(in);
    try {
      // The first document, then the start of a second one if there is one.
      if (parser.HandleNextDocument(scan)) parser.HandleNextDocument(scan);
    } catch (const SecondDocument& next) {
      second = next;
    }
  }
  if (!scan.start()) return YAML::Node();
  const YAML::Mark first = scan.root().value_or(*scan.start());
  if (second) {
    // On some malformed texts (a ',' where a document should start) the parser reports one empty
    // document after another without moving on: YAML::LoadAll would loop for ever.
    if (second->start.pos <= scan.start()->pos)
      throw ModelError(at(first), "malformed YAML: not a document");
    throw ModelError(at(second->root),
                     "a " + what + " holds one YAML document; a second one starts here");
  }
  return YAML::Load(text);
}

}  // namespace appell::io::detail
