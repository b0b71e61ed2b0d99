#include "appell/io/model_reader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "appell/io/model_file.hpp"
#include "appell/model/builder.hpp"
#include "appell/model/closest_name.hpp"
#include "appell/model/expression_parser.hpp"
#include "yaml_document.hpp"

namespace appell::io {

namespace {

using GiNaC::ex;
using model::locate_on_one_line;
using model::ModelError;
using model::SourceLocation;
using model::TextLocator;

// ---------------------------------------------------------------------------------------------
// Where things are in the file

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/// The model's text, to turn YAML marks and offsets inside scalars into file locations.
class SourceText {
 public:
  SourceText(std::string text, std::string file) : text_(std::move(text)), file_(std::move(file)) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }

  const std::string& text() const { return text_; }
  const std::string& file() const { return file_; }

  SourceLocation at(const YAML::Mark& mark) const {
    if (mark.is_null()) return SourceLocation{file_, 1, 1};  // an empty document
    return SourceLocation{file_, mark.line + 1, mark.column + 1};
  }

  /// The offset of a node's value in the text: past a tag or an anchor ("!!str 5", "&a 5").
  std::size_t value_start(const YAML::Node& node) const {
    std::size_t start = static_cast<std::size_t>(node.Mark().pos);
    while (start < text_.size() && (text_[start] == '!' || text_[start] == '&')) {
      while (start < text_.size() && !is_blank(text_[start])) ++start;
      while (start < text_.size() && (text_[start] == ' ' || text_[start] == '\t')) ++start;
    }
    return start;
  }

  /// Where each character of a scalar's value was written. Exact for plain and quoted scalars
  /// on one line; follows line folding and block scalars so that it stays right on later lines.
  TextLocator locator(const YAML::Node& scalar) const {
    const YAML::Mark mark = scalar.Mark();
    if (mark.is_null() || static_cast<std::size_t>(mark.pos) >= text_.size())
      return locate_on_one_line(at(mark));
    std::size_t start = value_start(scalar);
    if (start < text_.size() && (text_[start] == '"' || text_[start] == '\'')) {
      ++start;
    } else if (start < text_.size() && (text_[start] == '|' || text_[start] == '>')) {
      while (start < text_.size() && text_[start] != '\n') ++start;
      while (start < text_.size() && is_blank(text_[start])) ++start;
    }
    const std::string value = scalar.Scalar();
    return [this, start, value](std::size_t offset) {
      return at_position(walk(start, value, offset));
    };
  }

  /// The file location of a position in the text.
  SourceLocation location_of(std::size_t position) const { return at_position(position); }

 private:
  // Position in the text of character `offset` of `value`, which was written from `start` on:
  // a run of blanks in the text (indentation, a folded line break) stands for at most one
  // character of the value, and an escape sequence for one.
  std::size_t walk(std::size_t start, const std::string& value, std::size_t offset) const {
    std::size_t source = start;
    std::size_t i = 0;
    while (i < offset && i < value.size() && source < text_.size()) {
      const char c = text_[source];
      if (c == value[i]) {
        ++source;
        ++i;
      } else if (is_blank(c)) {
        while (source < text_.size() && is_blank(text_[source])) ++source;
        if (is_blank(value[i])) ++i;
      } else if (c == '\\') {
        source += 2;
        ++i;
      } else {
        break;  // written in a way this walk does not follow: point at where it got to
      }
    }
    return std::min(source, text_.size());
  }

  SourceLocation at_position(std::size_t position) const {
    const auto next_line = std::upper_bound(line_starts_.begin(), line_starts_.end(), position);
    const auto line = static_cast<std::size_t>(next_line - line_starts_.begin());  // 1-based
    return SourceLocation{file_, static_cast<int>(line),
                          static_cast<int>(position - line_starts_[line - 1] + 1)};
  }

  std::string text_;
  std::string file_;
  std::vector<std::size_t> line_starts_;
};

/// A YAML value with what it is called in messages (its key) and where it is. An empty value
/// (`key:` with nothing after it) is located at its key: yaml-cpp places it at the next token.
struct Item {
  YAML::Node node;
  std::string key;
  SourceLocation where;
};

/// A key of a map and its value.
struct Entry {
  std::string key;
  SourceLocation key_where;
  Item value;
};

std::string join_alternatives(const std::vector<std::string>& words) {
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) text += i + 1 == words.size() ? " or " : ", ";
    text += words[i];
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// The reader: the YAML's shapes and keys are checked here, everything the values mean by the
// builder (model::ModelBuilder), which is given each value with the place it was written.

class ModelReader {
 public:
  ModelReader(const std::string& text, const std::string& source_name)
      : source_(text, source_name) {}

  std::shared_ptr<const model::Model> read() {
    YAML::Node root;
    try {
      // Aliases bounded and acyclic, one document: before anything walks the tree.
      root = detail::load_yaml_document(source_.text(), source_.file(), "model file");
    } catch (const YAML::Exception& e) {
      // A quote left open in a flow map or list swallows the closing bracket, and yaml-cpp
      // complains only where the text ends: point at the quote instead.
      const bool unclosed = e.msg.find("not found") != std::string::npos;  // end of map/list
      if (const auto quote = unclosed ? open_quote_before(e.mark.pos) : std::nullopt)
        fail(source_.location_of(*quote), "unclosed quote: the string that starts here never ends",
             std::string(1, source_.text()[*quote]));
      throw ModelError(source_.at(e.mark), "malformed YAML: " + e.msg);
    }
    check_quotes_closed(root);
    const Item model_item{root, "", source_.at(root.Mark())};
    if (root.IsNull() || !root.IsDefined())
      fail(model_item.where, "empty model: expected a map with at least name and coordinates");
    if (!root.IsMap()) fail(model_item.where, "a model must be a YAML map of keys");

    const Fields top(*this, model_item, "the model",
                     {"name", "description", "parameters", "coordinates", "prescribed", "inputs",
                      "frames", "bodies", "particles", "gravity", "loads", "constraints",
                      "relative_to", "flexible", "independent", "visuals", "positive", "speeds"});
    model::ModelBuilder builder(text(top.require("name")), source_.file());
    if (auto description = top.find("description"))
      if (!description->node.IsNull()) builder.description(text(*description));

    const Sections sections = collect_sections(top);
    declare_names(builder, sections);

    for (const auto& p : sections.parameters) builder.parameter(name(p), expr(p.value));
    builder.coordinates_at(top.require("coordinates").where);
    for (const auto& c : sections.coordinates) read_coordinate(builder, c);
    for (const auto& i : sections.inputs) builder.input(name(i));
    for (const auto& p : sections.prescribed)
      builder.prescribed(name(p),
                         p.value.node.IsNull() ? std::nullopt : std::optional(expr(p.value)));
    for (const auto& f : sections.frames) read_frame(builder, f);
    if (auto speeds = top.find("speeds")) read_speeds(builder, *speeds);
    if (auto carrier = top.find("relative_to")) builder.relative_to(name(*carrier));
    for (const auto& b : sections.bodies) read_body(builder, b);
    for (const auto& p : sections.particles) read_particle(builder, p);
    if (auto gravity = top.find("gravity")) builder.gravity(expr3(*gravity));
    if (auto loads = top.find("loads")) read_loads(builder, *loads);
    if (auto constraints = top.find("constraints")) read_constraints(builder, *constraints);
    if (auto independent = top.find("independent")) read_independent(builder, *independent);
    if (auto positive = top.find("positive")) read_positive(builder, *positive);
    if (auto flexible = top.find("flexible")) read_flexible_bodies(builder, *flexible);
    if (auto visuals = top.find("visuals")) read_visuals(builder, *visuals);
    return builder.build();
  }

 private:
  // -- errors and YAML shapes -----------------------------------------------------------------

  /// The position of a quote that opens a string still open at `end` (reading the text from the
  /// start as YAML quotes it: a quote opens a string only where a value may start, after a
  /// space, ':', ',', '[', '{', '-' or a line start; '#' after a space starts a comment), or
  /// nothing. A negative `end` (yaml-cpp's unknown mark) reads to the end of the text.
  std::optional<std::size_t> open_quote_before(int end) const {
    const std::string& text = source_.text();
    const std::size_t stop =
        end < 0 ? text.size() : std::min(text.size(), static_cast<std::size_t>(end) + 1);
    std::optional<std::size_t> open;
    bool comment = false;
    for (std::size_t k = 0; k < stop; ++k) {
      const char c = text[k];
      if (c == '\n') {
        comment = false;  // a quoted string goes on over line ends
        continue;
      }
      if (comment) continue;
      if (open) {
        const char quote = text[*open];
        if (quote == '"' && c == '\\') {
          ++k;
        } else if (c == quote) {
          if (quote == '\'' && k + 1 < stop && text[k + 1] == '\'') {
            ++k;
          } else {
            open.reset();
          }
        }
        continue;
      }
      const char before = k == 0 ? '\n' : text[k - 1];
      const bool value_start = before == ' ' || before == '\t' || before == '\n' || before == ':' ||
                               before == ',' || before == '[' || before == '{' || before == '-';
      if (c == '#' && (before == ' ' || before == '\t' || before == '\n')) {
        comment = true;
      } else if ((c == '"' || c == '\'') && value_start) {
        open = k;
      }
    }
    return open;
  }

  /// yaml-cpp ends a quoted scalar whose closing quote is missing at the end of the file without
  /// a word; the rest of the file would silently become part of one string.
  void check_quotes_closed(const YAML::Node& node) const {
    if (node.IsMap() || node.IsSequence()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (node.IsMap()) {
          check_quotes_closed(it->first);
          check_quotes_closed(it->second);
        } else {
          check_quotes_closed(*it);
        }
      }
      return;
    }
    if (!node.IsScalar() || node.Mark().is_null()) return;
    const std::string& text = source_.text();
    const std::size_t i = source_.value_start(node);
    if (i >= text.size() || (text[i] != '"' && text[i] != '\'')) return;
    const char quote = text[i];
    for (std::size_t k = i + 1; k < text.size(); ++k) {
      if (quote == '"' && text[k] == '\\') {
        ++k;  // an escape: the next character is not the closing quote
      } else if (text[k] == quote) {
        if (quote == '\'' && k + 1 < text.size() && text[k + 1] == '\'') {
          ++k;  // '' inside single quotes is one quote
        } else {
          return;
        }
      }
    }
    fail(source_.at(node.Mark()), "unclosed quote: the string that starts here never ends",
         std::string(1, quote));
  }

  /// A hint for YAML that split an expression at a comma: in a flow map or list ({..} or [..]) an
  /// unquoted "atan2(y, x)" becomes two items.
  static std::string comma_hint(const YAML::Node& node) {
    auto unbalanced = [](const YAML::Node& n) {
      if (!n.IsScalar()) return false;
      int depth = 0;
      for (char c : n.Scalar()) depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      return depth != 0;
    };
    bool split = false;
    if (node.IsMap())
      for (auto it = node.begin(); it != node.end(); ++it)
        split = split || unbalanced(it->first) || unbalanced(it->second);
    if (node.IsSequence())
      for (const auto& element : node) split = split || unbalanced(element);
    return split ? "; an expression with a comma inside {..} or [..] must be quoted, e.g. "
                   "\"atan2(y, x)\""
                 : "";
  }

  [[noreturn]] static void fail(const SourceLocation& where, const std::string& message,
                                const std::string& offending = "") {
    throw ModelError(where, message, offending);
  }

  Item item(const YAML::Node& node, const std::string& key, const SourceLocation& key_where) const {
    // yaml-cpp places an empty value at the following token, which may be lines further down.
    return Item{node, key, node.IsNull() ? key_where : source_.at(node.Mark())};
  }

  /// The entries of a map in file order (an empty value counts as an empty map).
  std::vector<Entry> entries(const Item& map, const std::string& what) const {
    std::vector<Entry> result;
    if (map.node.IsNull()) return result;
    if (!map.node.IsMap()) fail(map.where, "expected a map of " + what, map.key);
    std::map<std::string, SourceLocation> seen;
    for (auto it = map.node.begin(); it != map.node.end(); ++it) {
      const SourceLocation key_where = source_.at(it->first.Mark());
      if (!it->first.IsScalar()) fail(key_where, "a key must be a plain name", map.key);
      const std::string key = it->first.Scalar();
      if (auto earlier = seen.find(key); earlier != seen.end())
        fail(key_where,
             "duplicate key, already given at line " + std::to_string(earlier->second.line), key);
      seen.emplace(key, key_where);
      result.push_back(Entry{key, key_where, item(it->second, key, key_where)});
    }
    return result;
  }

  /// The items of a list (an empty value counts as an empty list).
  std::vector<Item> list(const Item& sequence, const std::string& what) const {
    std::vector<Item> result;
    if (sequence.node.IsNull()) return result;
    if (!sequence.node.IsSequence())
      fail(sequence.where, "expected a list of " + what, sequence.key);
    for (const auto& element : sequence.node)
      result.push_back(Item{element, sequence.key, source_.at(element.Mark())});
    return result;
  }

  /// The keys of a map, checked against those it may have: a typo is an error, not a default.
  class Fields {
   public:
    Fields(const ModelReader& reader, const Item& map, const std::string& what,
           const std::vector<std::string>& allowed)
        : map_(map), entries_(reader.entries(map, "keys for " + what)) {
      for (const auto& e : entries_)
        if (std::find(allowed.begin(), allowed.end(), e.key) == allowed.end())
          fail(e.key_where,
               "unknown key in " + what + "; expected " + join_alternatives(allowed) +
                   comma_hint(map.node) + model::did_you_mean(e.key, allowed),
               e.key);
    }

    std::optional<Item> find(const std::string& key) const {
      for (const auto& e : entries_)
        if (e.key == key) return e.value;
      return std::nullopt;
    }

    Item require(const std::string& key) const {
      if (auto found = find(key)) return *found;
      fail(map_.where, "missing required key", key);
    }

    const std::vector<Entry>& entries() const { return entries_; }

   private:
    Item map_;
    std::vector<Entry> entries_;
  };

  std::string text(const Item& value) const {
    if (!value.node.IsDefined() || value.node.IsNull())
      fail(value.where, "missing value", value.key);
    if (!value.node.IsScalar())
      fail(value.where, "expected a single value, not a list or a map", value.key);
    return value.node.Scalar();
  }

  // -- values for the builder, with where they were written -----------------------------------

  model::Expr expr(const Item& value) const {
    const std::string written = text(value);
    return model::Expr(written).at({value.where, source_.locator(value.node)});
  }

  model::Expr3 expr3(const Item& value) const {
    if (!value.node.IsSequence() || value.node.size() != 3)
      fail(value.where, "expected a vector of 3 components [x, y, z]" + comma_hint(value.node),
           value.key);
    const auto components = list(value, "components");
    return {expr(components[0]), expr(components[1]), expr(components[2])};
  }

  /// A 3x3 matrix written as a list of three rows, or nullopt if `value` does not have that shape.
  std::optional<std::array<model::Expr3, 3>> matrix3(const Item& value) const {
    if (!value.node.IsSequence() || value.node.size() != 3) return std::nullopt;
    for (const auto& row : value.node)
      if (!row.IsSequence() || row.size() != 3) return std::nullopt;
    std::vector<model::Expr3> rows;
    for (const auto& row : list(value, "rows")) {
      const auto entries = list(row, "entries");
      rows.push_back({expr(entries[0]), expr(entries[1]), expr(entries[2])});
    }
    return std::array<model::Expr3, 3>{rows[0], rows[1], rows[2]};
  }

  model::Name name(const Item& value) const { return model::Name(text(value), value.where); }

  // -- names ----------------------------------------------------------------------------------

  /// A name defined by the model, with the value that describes it.
  struct Definition {
    std::string name;
    SourceLocation where;
    Item value;
  };

  static model::Name name(const Definition& d) { return model::Name(d.name, d.where); }

  struct Sections {
    std::vector<Definition> parameters, coordinates, prescribed, inputs, frames, bodies, particles;
  };

  std::vector<Definition> map_definitions(const Fields& top, const std::string& key,
                                          const std::string& what) const {
    std::vector<Definition> result;
    if (auto section = top.find(key))
      for (const auto& e : entries(*section, what)) result.push_back({e.key, e.key_where, e.value});
    return result;
  }

  Sections collect_sections(const Fields& top) const {
    Sections s;
    s.parameters = map_definitions(top, "parameters", "parameter names to values");
    s.prescribed = map_definitions(top, "prescribed", "names to expressions of t (or null)");
    s.frames = map_definitions(top, "frames", "frame names to frames");
    s.bodies = map_definitions(top, "bodies", "body names to bodies");
    s.particles = map_definitions(top, "particles", "particle names to particles");

    for (const auto& c : list(top.require("coordinates"), "coordinate names")) {
      if (c.node.IsMap()) {
        const Fields fields(*this, c, "a coordinate", {"name", "initial", "velocity", "limits"});
        const Item name = fields.require("name");
        s.coordinates.push_back({text(name), name.where, c});
      } else {
        s.coordinates.push_back({text(c), c.where, c});
      }
    }
    if (auto inputs = top.find("inputs"))
      for (const auto& i : list(*inputs, "input names")) s.inputs.push_back({text(i), i.where, i});
    return s;
  }

  /// Every name of the file in file order, so that the second of two definitions is reported.
  static void declare_names(model::ModelBuilder& builder, const Sections& s) {
    std::vector<const Definition*> all;
    for (const auto* section : {&s.parameters, &s.coordinates, &s.prescribed, &s.inputs, &s.frames,
                                &s.bodies, &s.particles})
      for (const auto& d : *section) all.push_back(&d);
    std::stable_sort(all.begin(), all.end(), [](const Definition* a, const Definition* b) {
      return std::pair(a->where.line, a->where.column) < std::pair(b->where.line, b->where.column);
    });
    std::vector<model::Name> names;
    for (const auto* d : all) names.push_back(name(*d));
    builder.declare_names(names);
  }

  // -- sections -------------------------------------------------------------------------------

  void read_coordinate(model::ModelBuilder& builder, const Definition& c) const {
    model::Expr initial = 0, velocity = 0;
    std::optional<Item> limits;
    if (c.value.node.IsMap()) {
      const Fields fields(*this, c.value, "a coordinate",
                          {"name", "initial", "velocity", "limits"});
      if (auto i = fields.find("initial")) initial = expr(*i);
      if (auto v = fields.find("velocity")) velocity = expr(*v);
      limits = fields.find("limits");
    }
    builder.coordinate(name(c), initial, velocity);
    if (limits) {
      const Fields fields(*this, *limits, "limits", {"lower", "upper", "velocity", "effort"});
      model::LimitsSpec spec;
      if (auto v = fields.find("lower")) spec.lower = expr(*v);
      if (auto v = fields.find("upper")) spec.upper = expr(*v);
      if (auto v = fields.find("velocity")) spec.velocity = expr(*v);
      if (auto v = fields.find("effort")) spec.effort = expr(*v);
      builder.limits(name(c), spec, limits->where);
    }
  }

  /// visuals: [{frame, translation, rotation, box | cylinder | sphere | mesh}, ..].
  void read_visuals(model::ModelBuilder& builder, const Item& section) const {
    static const std::vector<std::string> shapes = {"box", "cylinder", "sphere", "mesh"};
    for (const auto& v : list(section, "visuals")) {
      const Fields fields(
          *this, v, "a visual",
          {"frame", "translation", "rotation", "box", "cylinder", "sphere", "mesh"});
      model::VisualSpec spec;
      spec.frame = name(fields.require("frame"));
      if (auto translation = fields.find("translation")) spec.translation = expr3(*translation);
      if (auto rotation = fields.find("rotation"))
        spec.rotation =
            model::Rotation(text(*rotation)).at({rotation->where, source_.locator(rotation->node)});
      std::optional<Entry> shape;
      for (const auto& e : fields.entries()) {
        if (std::find(shapes.begin(), shapes.end(), e.key) == shapes.end()) continue;
        if (shape) fail(e.key_where, "a visual has one shape", e.key);
        shape = e;
      }
      if (!shape) fail(v.where, "a visual needs a shape: " + join_alternatives(shapes));
      if (shape->key == "box") {
        const Fields f(*this, shape->value, "a box", {"size"});
        spec.shape = model::Visual::Shape::Box;
        spec.size = expr3(f.require("size"));
      } else if (shape->key == "cylinder") {
        const Fields f(*this, shape->value, "a cylinder", {"radius", "length"});
        spec.shape = model::Visual::Shape::Cylinder;
        spec.size = {expr(f.require("radius")), expr(f.require("length")), 0};
      } else if (shape->key == "sphere") {
        const Fields f(*this, shape->value, "a sphere", {"radius"});
        spec.shape = model::Visual::Shape::Sphere;
        spec.size = {expr(f.require("radius")), 0, 0};
      } else {
        const Fields f(*this, shape->value, "a mesh", {"file", "scale"});
        spec.shape = model::Visual::Shape::Mesh;
        spec.mesh = text(f.require("file"));
        spec.size = {1, 1, 1};
        if (auto scale = f.find("scale")) spec.size = expr3(*scale);
      }
      builder.visual(spec, v.where);
    }
  }

  void read_frame(model::ModelBuilder& builder, const Definition& d) const {
    const Fields fields(*this, d.value, "a frame", {"parent", "translation", "rotation", "speeds"});
    model::FrameSpec spec;
    if (auto speeds = fields.find("speeds")) {
      if (!speeds->node.IsSequence())
        fail(speeds->where, "expected a list of three speed names [w1, w2, w3]", "speeds");
      for (const auto& w : list(*speeds, "speed names")) spec.speeds.push_back(name(w));
    }
    if (auto parent = fields.find("parent")) spec.parent = name(*parent);
    if (auto translation = fields.find("translation")) spec.translation = expr3(*translation);
    if (auto rotation = fields.find("rotation")) {
      if (rotation->node.IsScalar()) {
        spec.rotation =
            model::Rotation(text(*rotation)).at({rotation->where, source_.locator(rotation->node)});
      } else if (auto m = matrix3(*rotation)) {
        spec.rotation = model::Rotation::matrix(*m).at({rotation->where, {}});
      } else {
        fail(rotation->where,
             "expected rot_x(a), rot_y(a), rot_z(a), rot(ax, ay, az, a), a product of them, or a "
             "3x3 matrix as a list of three rows",
             rotation->key);
      }
    }
    builder.frame(name(d), spec);
  }

  void read_body(model::ModelBuilder& builder, const Definition& d) const {
    const Fields fields(*this, d.value, "a body", {"frame", "mass", "com", "inertia"});
    model::BodySpec spec;
    spec.frame = name(fields.require("frame"));
    spec.mass = expr(fields.require("mass"));
    if (auto com = fields.find("com")) spec.com = expr3(*com);
    if (auto inertia = fields.find("inertia")) spec.inertia = read_inertia(*inertia);
    builder.body(name(d), spec);
  }

  /// Any form of the format: a 3×3 matrix, the six entries, or one homogeneous shape.
  model::Inertia read_inertia(const Item& value) const {
    const model::Origin origin{value.where, {}};
    if (value.node.IsSequence()) {
      if (auto m = matrix3(value)) return model::Inertia::matrix(*m).at(origin);
      if (value.node.size() == 6) {
        const auto e = list(value, "entries");
        return model::Inertia::entries(expr(e[0]), expr(e[1]), expr(e[2]), expr(e[3]), expr(e[4]),
                                       expr(e[5]))
            .at(origin);
      }
      if (value.node.size() == 3) {
        // The principal moments alone, products zero: the planar textbooks' [0, 0, I].
        const auto e = list(value, "entries");
        return model::Inertia::entries(expr(e[0]), expr(e[1]), expr(e[2]), 0, 0, 0).at(origin);
      }
      fail(value.where,
           "inertia must be a 3x3 matrix (list of rows), [Ixx, Iyy, Izz, Ixy, Iyz, Ixz] or "
           "[Ixx, Iyy, Izz]",
           value.key);
    }
    if (!value.node.IsMap())
      fail(value.where,
           "inertia must be a 3x3 matrix, [Ixx, Iyy, Izz, Ixy, Iyz, Ixz], [Ixx, Iyy, Izz] or a "
           "shape",
           value.key);

    const Fields shapes(*this, value, "an inertia", {"rod", "disk", "cylinder", "box", "sphere"});
    if (shapes.entries().size() != 1)
      fail(value.where, "inertia shape: give exactly one of rod, disk, cylinder, box, sphere",
           value.key);
    const Entry& shape = shapes.entries().front();
    const std::string& kind = shape.key;
    if (kind == "rod") {
      const Fields f(*this, shape.value, "a rod", {"length", "axis"});
      return model::Inertia::rod(expr(f.require("length")), name(f.require("axis"))).at(origin);
    }
    if (kind == "disk") {
      const Fields f(*this, shape.value, "a disk", {"radius", "axis"});
      return model::Inertia::disk(expr(f.require("radius")), name(f.require("axis"))).at(origin);
    }
    if (kind == "cylinder") {
      const Fields f(*this, shape.value, "a cylinder", {"radius", "length", "axis"});
      return model::Inertia::cylinder(expr(f.require("radius")), expr(f.require("length")),
                                      name(f.require("axis")))
          .at(origin);
    }
    if (kind == "box") {
      const Fields f(*this, shape.value, "a box", {"size"});
      return model::Inertia::box(expr3(f.require("size"))).at(origin);
    }
    const Fields f(*this, shape.value, "a sphere", {"radius"});
    return model::Inertia::sphere(expr(f.require("radius"))).at(origin);
  }

  void read_particle(model::ModelBuilder& builder, const Definition& d) const {
    const Fields fields(*this, d.value, "a particle", {"frame", "mass", "position"});
    model::ParticleSpec spec;
    spec.frame = name(fields.require("frame"));
    spec.mass = expr(fields.require("mass"));
    if (auto position = fields.find("position")) spec.position = expr3(*position);
    builder.particle(name(d), spec);
  }

  // -- loads ----------------------------------------------------------------------------------

  /// [FRAME_OR_BODY, [x, y, z]]: a point fixed in a frame, components along its axes.
  model::PointSpec point(const Item& value) const {
    if (!value.node.IsSequence() || value.node.size() != 2)
      fail(value.where, "expected [FRAME, [x, y, z]]", value.key);
    const auto parts = list(value, "a frame and a point");
    return model::PointSpec{name(parts[0]), expr3(parts[1])};
  }

  void read_loads(model::ModelBuilder& builder, const Item& section) const {
    static const std::vector<std::string> kinds = {"force",  "torque",      "spring",
                                                   "damper", "generalized", "potential"};
    for (const auto& load : list(section, "loads")) {
      if (!load.node.IsMap())
        fail(load.where, "a load is a map with one of " + join_alternatives(kinds));
      std::optional<Entry> kind, load_name;
      for (const auto& e : entries(load, "keys")) {
        if (e.key == "name") load_name = e;
        if (std::find(kinds.begin(), kinds.end(), e.key) == kinds.end()) continue;
        if (kind) fail(e.key_where, "a load has one kind only, already " + kind->key, e.key);
        kind = e;
      }
      if (!kind) fail(load.where, "a load needs one of " + join_alternatives(kinds));
      read_load(builder, kind->key, load);
      if (load_name) builder.name_load(name(load_name->value));
    }
  }

  void read_load(model::ModelBuilder& builder, const std::string& kind, const Item& load) const {
    if (kind == "force") {
      const Fields f(*this, load, "a force", {"name", "force", "on", "at", "in"});
      model::ForceSpec spec;
      spec.force = expr3(f.require("force"));
      spec.on = name(f.require("on"));
      if (auto at = f.find("at")) spec.at = expr3(*at);
      if (auto in = f.find("in")) spec.in = name(*in);
      builder.force(spec, load.where);
    } else if (kind == "torque") {
      const Fields f(*this, load, "a torque", {"name", "torque", "on", "in"});
      model::TorqueSpec spec;
      spec.torque = expr3(f.require("torque"));
      spec.on = name(f.require("on"));
      if (auto in = f.find("in")) spec.in = name(*in);
      builder.torque(spec, load.where);
    } else if (kind == "spring") {
      const Fields outer(*this, load, "a spring load", {"name", "spring"});
      const Fields f(*this, outer.require("spring"), "a spring",
                     {"from", "to", "stiffness", "rest_length"});
      model::SpringSpec spec;
      spec.from = point(f.require("from"));
      spec.to = point(f.require("to"));
      spec.stiffness = expr(f.require("stiffness"));
      if (auto rest = f.find("rest_length")) spec.rest_length = expr(*rest);
      builder.spring(spec, load.where);
    } else if (kind == "damper") {
      const Fields outer(*this, load, "a damper load", {"name", "damper"});
      const Fields f(*this, outer.require("damper"), "a damper", {"from", "to", "coefficient"});
      model::DamperSpec spec;
      spec.from = point(f.require("from"));
      spec.to = point(f.require("to"));
      spec.coefficient = expr(f.require("coefficient"));
      builder.damper(spec, load.where);
    } else if (kind == "generalized") {
      const Fields outer(*this, load, "a generalized load", {"name", "generalized"});
      const Fields f(*this, outer.require("generalized"), "a generalized force",
                     {"coordinate", "value"});
      builder.generalized_force(name(f.require("coordinate")), expr(f.require("value")),
                                load.where);
    } else {
      const Fields f(*this, load, "a potential", {"name", "potential"});
      builder.potential(expr(f.require("potential")), load.where);
    }
  }

  // -- constraints and independent speeds -----------------------------------------------------

  void read_constraints(model::ModelBuilder& builder, const Item& section) const {
    for (const auto& item : list(section, "constraints")) {
      const Fields f(*this, item, "a constraint", {"name", "holonomic", "nonholonomic"});
      const model::Name constraint = name(f.require("name"));
      const auto holonomic = f.find("holonomic"), nonholonomic = f.find("nonholonomic");
      if (holonomic.has_value() == nonholonomic.has_value())
        fail(item.where, "a constraint is either holonomic or nonholonomic", constraint.text);
      if (holonomic)
        builder.holonomic_constraint(constraint, expr(*holonomic), item.where);
      else
        builder.nonholonomic_constraint(constraint, expr(*nonholonomic), item.where);
    }
  }

  void read_positive(model::ModelBuilder& builder, const Item& section) const {
    if (!section.node.IsSequence())
      fail(section.where, "expected a list of parameter and coordinate names", "positive");
    std::vector<model::Name> names;
    for (const auto& item : list(section, "parameter and coordinate names"))
      names.push_back(name(item));
    builder.positive(names, section.where);
  }

  /// speeds: [{name: u1, value: "EXPR linear in dot(q)"}, ..].
  void read_speeds(model::ModelBuilder& builder, const Item& section) const {
    if (!section.node.IsSequence())
      fail(section.where, "expected a list of speeds {name: u1, value: EXPR}", "speeds");
    builder.speeds_at(section.where);
    for (const auto& item : list(section, "speeds")) {
      const Fields f(*this, item, "a speed", {"name", "value"});
      builder.speed(name(f.require("name")), expr(f.require("value")), item.where);
    }
  }

  void read_independent(model::ModelBuilder& builder, const Item& section) const {
    if (!section.node.IsSequence())
      fail(section.where, "expected a list of coordinate names", "independent");
    std::vector<model::Name> names;
    for (const auto& item : list(section, "coordinate names")) names.push_back(name(item));
    builder.independent(names, section.where);
  }

  // -- flexible bodies (docs/model-format.md, "Flexible bodies") --------------------------------

  void read_flexible_bodies(model::ModelBuilder& builder, const Item& section) const {
    for (const auto& item : list(section, "flexible bodies")) {
      const Fields f(*this, item, "a flexible body",
                     {"name", "frame", "mesh", "material", "clamp", "prescribed", "loads",
                      "stiffening", "damping"});
      const model::Name body = name(f.require("name"));
      model::FlexibleSpec spec;
      spec.frame = name(f.require("frame"));
      const Item mesh = f.require("mesh");
      spec.mesh = read_mesh(mesh, body.text);
      spec.mesh_where = mesh.where;
      const Item material = f.require("material");
      const Fields mf(*this, material, "a material", {"E", "nu", "rho"});
      spec.material_where = material.where;
      spec.youngs_modulus = expr(mf.require("E"));
      spec.density = expr(mf.require("rho"));
      spec.poisson_ratio = expr(mf.require("nu"));
      if (auto clamp = f.find("clamp")) {
        if (clamp->node.IsSequence())
          for (const auto& selection : list(*clamp, "node selections"))
            spec.clamp.push_back(node_selection(selection));
        else
          spec.clamp.push_back(node_selection(*clamp));
      }
      if (auto prescribed = f.find("prescribed"))
        for (const auto& p : list(*prescribed, "prescribed displacements")) {
          const Fields pf(*this, p, "a prescribed displacement", {"at", "displacement"});
          spec.prescribed.push_back(
              {node_selection(pf.require("at")), expr3(pf.require("displacement")), p.where});
        }
      if (auto loads = f.find("loads"))
        for (const auto& l : list(*loads, "loads on a flexible body")) {
          const Fields lf(*this, l, "a load on a flexible body", {"at", "force", "body_force"});
          model::FlexibleLoadSpec load;
          load.where = l.where;
          const auto at = lf.find("at"), force = lf.find("force"),
                     body_force = lf.find("body_force");
          if (body_force) {
            if (at || force)
              fail(l.where, "a body_force acts on the whole body: no `at` and no `force`",
                   body.text);
            load.force = expr3(*body_force);
          } else {
            if (!at || !force)
              fail(l.where, "a nodal load needs `at` (a node selection) and `force` [Fx, Fy, Fz]",
                   body.text);
            load.at = node_selection(*at);
            load.force = expr3(*force);
          }
          spec.loads.push_back(std::move(load));
        }
      if (auto stiffening = f.find("stiffening")) spec.stiffening = boolean(*stiffening);
      if (auto damping = f.find("damping")) {
        const Fields df(*this, *damping, "Rayleigh damping", {"alpha", "beta"});
        if (auto alpha = df.find("alpha")) spec.rayleigh_alpha = expr(*alpha);
        if (auto beta = df.find("beta")) spec.rayleigh_beta = expr(*beta);
      }
      builder.flexible(body, spec, item.where);
    }
  }

  bool boolean(const Item& value) const {
    const std::string written = text(value);
    if (written == "true") return true;
    if (written == "false") return false;
    fail(value.where, "expected true or false", value.key);
  }

  /// A whole number as written (its range is the builder's to check).
  long whole_number(const Item& value) const {
    const std::string written = text(value);
    std::size_t used = 0;
    long n = 0;
    try {
      n = std::stol(written, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != written.size()) fail(value.where, "expected a whole number >= 1", value.key);
    return n;
  }

  std::variant<model::BoxMeshInput, model::BeamMeshInput, model::GmshMeshInput> read_mesh(
      const Item& value, const std::string& body) const {
    const Fields f(*this, value, "a mesh", {"box", "beam", "gmsh"});
    if (f.entries().size() != 1) fail(value.where, "a mesh is one of box, beam or gmsh", body);
    const Entry& kind = f.entries().front();
    if (kind.key == "box") {
      const Fields bf(*this, kind.value, "a box mesh", {"size", "divisions"});
      model::BoxMeshInput box;
      const Item size = bf.require("size");
      if (!size.node.IsSequence() || size.node.size() != 3)
        fail(size.where, "expected [L, b, h]", "size");
      const auto lengths = list(size, "lengths");
      for (std::size_t k = 0; k < 3; ++k) box.size[k] = expr(lengths[k]);
      const Item divisions = bf.require("divisions");
      if (!divisions.node.IsSequence() || divisions.node.size() != 3)
        fail(divisions.where, "expected [nx, ny, nz]", "divisions");
      const auto counts = list(divisions, "divisions");
      for (std::size_t k = 0; k < 3; ++k) {
        box.divisions[k] = whole_number(counts[k]);
        box.divisions_where[k] = counts[k].where;
      }
      return box;
    }
    if (kind.key == "beam") {
      const Fields bf(*this, kind.value, "a beam mesh",
                      {"length", "elements", "section", "planar"});
      model::BeamMeshInput beam;
      beam.length = expr(bf.require("length"));
      const Item elements = bf.require("elements");
      beam.elements = whole_number(elements);
      beam.elements_where = elements.where;
      if (auto planar = bf.find("planar")) beam.planar = boolean(*planar);
      const Fields sf(*this, bf.require("section"), "a beam section", {"area", "Iy", "Iz", "J"});
      beam.area = expr(sf.require("area"));
      beam.Iz = expr(sf.require("Iz"));
      if (auto iy = sf.find("Iy")) beam.Iy = expr(*iy);
      if (auto j = sf.find("J")) beam.J = expr(*j);
      return beam;
    }
    return model::GmshMeshInput{text(kind.value)};
  }

  model::NodeSelectionSpec node_selection(const Item& value) const {
    const Fields f(*this, value, "a node selection", {"x", "y", "z", "nodes", "group"});
    model::NodeSelectionSpec selection;
    selection.where = value.where;
    const char* axes[] = {"x", "y", "z"};
    for (std::size_t k = 0; k < 3; ++k)
      if (auto plane = f.find(axes[k])) selection.plane[k] = expr(*plane);
    if (auto nodes = f.find("nodes"))
      for (const auto& n : list(*nodes, "node indices")) {
        const std::string written = text(n);
        std::size_t used = 0;
        long index = -1;
        try {
          index = std::stol(written, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != written.size()) fail(n.where, "expected a node index (0, 1, 2, ...)", written);
        selection.nodes.push_back(index);
        selection.nodes_where.push_back(n.where);
      }
    if (auto group = f.find("group")) selection.group = text(*group);
    return selection;
  }

  SourceText source_;
};

}  // namespace

std::shared_ptr<const model::Model> parse_model(const std::string& yaml_text,
                                                const std::string& source_name) {
  return ModelReader(yaml_text, source_name).read();
}

std::shared_ptr<const model::Model> read_model_file(const std::string& path) {
  return parse_model(read_model_text(path), path);
}

}  // namespace appell::io
