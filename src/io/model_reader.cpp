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

#include "appell/io/expression_parser.hpp"
#include "appell/sym/dag.hpp"

namespace appell::io {

namespace {

using GiNaC::ex;
using model::ModelError;
using model::SourceLocation;

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

  /// Where each character of a scalar's value was written. Exact for plain and quoted scalars
  /// on one line; follows line folding and block scalars so that it stays right on later lines.
  TextLocator locator(const YAML::Node& scalar) const {
    const YAML::Mark mark = scalar.Mark();
    if (mark.is_null() || static_cast<std::size_t>(mark.pos) >= text_.size())
      return locate_on_one_line(at(mark));
    std::size_t start = static_cast<std::size_t>(mark.pos);
    // A tag or an anchor may precede the value: "!!str 5", "&a 5".
    while (start < text_.size() && (text_[start] == '!' || text_[start] == '&')) {
      while (start < text_.size() && !is_blank(text_[start])) ++start;
      while (start < text_.size() && (text_[start] == ' ' || text_[start] == '\t')) ++start;
    }
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
// The reader

constexpr double kRotationTolerance = 1e-9;

class ModelReader {
 public:
  ModelReader(const std::string& text, const std::string& source_name)
      : source_(text, source_name),
        model_(std::make_shared<model::Model>()),
        scope_(model_->time_functions) {
    model_->source = source_name;
  }

  std::shared_ptr<const model::Model> read() {
    YAML::Node root;
    try {
      root = YAML::Load(source_.text());
    } catch (const YAML::Exception& e) {
      throw ModelError(source_.at(e.mark), "malformed YAML: " + e.msg);
    }
    const Item model_item{root, "", source_.at(root.Mark())};
    if (root.IsNull() || !root.IsDefined())
      fail(model_item.where, "empty model: expected a map with at least name and coordinates");
    if (!root.IsMap()) fail(model_item.where, "a model must be a YAML map of keys");

    const Fields top(*this, model_item, "the model",
                     {"name", "description", "parameters", "coordinates", "prescribed", "inputs",
                      "frames", "bodies", "particles", "gravity", "loads", "constraints",
                      "relative_to", "flexible", "independent"});
    model_->name = text(top.require("name"));
    if (auto description = top.find("description"))
      if (!description->node.IsNull()) model_->description = text(*description);

    const Sections sections = collect_sections(top);
    check_names(sections);

    read_parameters(sections.parameters);
    read_coordinates(sections.coordinates, top.require("coordinates"),
                     top.find("flexible").has_value());
    read_inputs(sections.inputs);
    read_prescribed(sections.prescribed);
    read_frames(sections.frames);
    if (auto carrier = top.find("relative_to")) read_carrier(*carrier);
    read_bodies(sections.bodies);
    read_particles(sections.particles);
    if (auto gravity = top.find("gravity"))
      model_->gravity = vector3(*gravity, Dependence::TimeAndParameters);
    if (auto loads = top.find("loads")) read_loads(*loads);
    if (auto constraints = top.find("constraints")) read_constraints(*constraints);
    if (auto independent = top.find("independent")) read_independent(*independent);
    if (auto flexible = top.find("flexible")) read_flexible_bodies(*flexible);
    return model_;
  }

 private:
  // -- errors and YAML shapes -----------------------------------------------------------------

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
           const std::vector<std::string>& allowed,
           const std::vector<std::string>& not_supported_yet = {})
        : map_(map), entries_(reader.entries(map, "keys for " + what)) {
      for (const auto& e : entries_) {
        if (std::find(not_supported_yet.begin(), not_supported_yet.end(), e.key) !=
            not_supported_yet.end())
          fail(e.key_where, "not supported yet", e.key);
        if (std::find(allowed.begin(), allowed.end(), e.key) == allowed.end())
          fail(e.key_where, "unknown key in " + what + "; expected " + join_alternatives(allowed),
               e.key);
      }
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

  // -- expressions ----------------------------------------------------------------------------

  ex expression(const Item& value, Dependence allowed) {
    const std::string written = text(value);
    return parse_expression(written, scope_, source_.locator(value.node), allowed);
  }

  /// An expression of parameters evaluated at the parameters' defaults; nullopt if that is not
  /// a real number (or has no value at all, like 1/(a - 1) for a = 1).
  std::optional<double> at_defaults(const ex& e) const {
    try {
      const ex value = GiNaC::evalf(sym::substitute(e, defaults_));
      if (GiNaC::is_a<GiNaC::numeric>(value) && GiNaC::ex_to<GiNaC::numeric>(value).is_real())
        return GiNaC::ex_to<GiNaC::numeric>(value).to_double();
    } catch (const std::exception&) {
      // GiNaC's pole and division errors: no value, reported by the caller at its place.
    }
    return std::nullopt;
  }

  /// A value that must be a number (parameters allowed, at their default values).
  double number(const Item& value) {
    const auto number = at_defaults(expression(value, Dependence::Parameters));
    if (!number) fail(value.where, "expected a real number", value.key);
    return *number;
  }

  model::Vector3 vector3(const Item& value, Dependence allowed) {
    if (!value.node.IsSequence() || value.node.size() != 3)
      fail(value.where, "expected a vector of 3 components [x, y, z]", value.key);
    model::Vector3 v;
    std::size_t k = 0;
    for (const auto& component : list(value, "components")) v[k++] = expression(component, allowed);
    return v;
  }

  /// A 3x3 matrix written as a list of three rows, or nullopt if `value` does not have that shape.
  std::optional<GiNaC::matrix> matrix3(const Item& value, Dependence allowed) {
    if (!value.node.IsSequence() || value.node.size() != 3) return std::nullopt;
    for (const auto& row : value.node)
      if (!row.IsSequence() || row.size() != 3) return std::nullopt;
    GiNaC::matrix m(3, 3);
    unsigned i = 0;
    for (const auto& row : list(value, "rows")) {
      unsigned j = 0;
      for (const auto& entry : list(row, "entries")) m(i, j++) = expression(entry, allowed);
      ++i;
    }
    return m;
  }

  // -- names ----------------------------------------------------------------------------------

  /// A name defined by the model, with the value that describes it.
  struct Definition {
    std::string name;
    SourceLocation where;
    Item value;
  };

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
        const Fields fields(*this, c, "a coordinate", {"name", "initial", "velocity"});
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

  /// Valid, not reserved, and each defined once whatever its kind (so that `on: NAME` in a load
  /// cannot be ambiguous). Checked in file order so that the second definition is reported.
  void check_names(const Sections& s) const {
    std::vector<const Definition*> all;
    for (const auto* section : {&s.parameters, &s.coordinates, &s.prescribed, &s.inputs, &s.frames,
                                &s.bodies, &s.particles})
      for (const auto& d : *section) all.push_back(&d);
    std::stable_sort(all.begin(), all.end(), [](const Definition* a, const Definition* b) {
      return std::pair(a->where.line, a->where.column) < std::pair(b->where.line, b->where.column);
    });
    std::map<std::string, SourceLocation> defined;
    for (const auto* d : all) {
      if (!is_valid_name(d->name))
        fail(d->where, "invalid name: a letter followed by letters, digits or _", d->name);
      if (is_reserved_name(d->name)) fail(d->where, "reserved name", d->name);
      if (auto earlier = defined.find(d->name); earlier != defined.end())
        fail(d->where,
             "name already defined at line " + std::to_string(earlier->second.line) + ", column " +
                 std::to_string(earlier->second.column),
             d->name);
      defined.emplace(d->name, d->where);
    }
  }

  // -- sections -------------------------------------------------------------------------------

  void read_parameters(const std::vector<Definition>& parameters) {
    // In file order, each added after its value is read: a value may only use earlier ones.
    for (const auto& p : parameters) {
      const ex value = expression(p.value, Dependence::Parameters);
      const auto number = at_defaults(value);
      if (!number) fail(p.value.where, "parameter value is not a real number", p.name);
      const GiNaC::symbol symbol(p.name, sym::latex_identifier(p.name));
      model_->parameters.push_back(model::Parameter{p.name, symbol, value, p.where});
      scope_.add_parameter(p.name, symbol);
      defaults_[symbol] = *number;
    }
  }

  // A model whose only moving parts are flexible bodies on prescribed frames needs no
  // coordinate (`coordinates: []`); any other model does.
  void read_coordinates(const std::vector<Definition>& coordinates, const Item& section,
                        bool has_flexible_bodies) {
    if (coordinates.empty() && !has_flexible_bodies)
      fail(section.where, "at least one generalized coordinate is needed", "coordinates");
    for (const auto& c : coordinates) {
      model::Coordinate coordinate;
      coordinate.name = c.name;
      coordinate.where = c.where;
      if (c.value.node.IsMap()) {
        const Fields fields(*this, c.value, "a coordinate", {"name", "initial", "velocity"});
        if (auto initial = fields.find("initial")) coordinate.initial = number(*initial);
        if (auto velocity = fields.find("velocity")) coordinate.velocity = number(*velocity);
      }
      scope_.add_coordinate(c.name);
      model_->coordinates.push_back(coordinate);
    }
  }

  void read_prescribed(const std::vector<Definition>& prescribed) {
    for (const auto& p : prescribed) {
      std::optional<ex> expression_of_t;
      if (!p.value.node.IsNull())
        expression_of_t = expression(p.value, Dependence::TimeAndParameters);
      scope_.add_prescribed(p.name, expression_of_t);
      model_->prescribed.push_back(model::Prescribed{p.name, expression_of_t, p.where});
    }
  }

  void read_inputs(const std::vector<Definition>& inputs) {
    for (const auto& i : inputs) {
      scope_.add_input(i.name);
      model_->inputs.push_back(model::Input{i.name, i.where});
    }
  }

  // A frame as written, before the frames are put in order.
  struct WrittenFrame {
    model::Frame frame;
    std::optional<Item> parent;
  };

  void read_frames(const std::vector<Definition>& definitions) {
    std::vector<WrittenFrame> written;
    std::map<std::string, std::size_t> index;
    for (const auto& d : definitions) {
      const Fields fields(*this, d.value, "a frame", {"parent", "translation", "rotation"});
      WrittenFrame w;
      w.frame.name = d.name;
      w.frame.where = d.where;
      if ((w.parent = fields.find("parent"))) w.frame.parent = text(*w.parent);
      if (auto translation = fields.find("translation"))
        w.frame.translation = vector3(*translation, Dependence::Anything);
      if (auto rotation = fields.find("rotation"))
        w.frame.rotation = read_rotation(*rotation, d.name);
      index[d.name] = written.size();
      written.push_back(std::move(w));
    }
    for (const auto& w : written)
      if (w.frame.parent != "world" && !index.count(w.frame.parent))
        fail(w.parent->where, "unknown parent frame", w.frame.parent);

    // Parents before children whatever the order of the file: walk up from each frame to the
    // first frame already placed (or world), then place the walked chain from the top down.
    enum class State { Unplaced, OnChain, Placed };
    std::vector<State> state(written.size(), State::Unplaced);
    for (std::size_t first = 0; first < written.size(); ++first) {
      std::vector<std::size_t> chain;
      std::optional<std::size_t> current = first;
      while (current && state[*current] == State::Unplaced) {
        state[*current] = State::OnChain;
        chain.push_back(*current);
        const std::string& parent = written[*current].frame.parent;
        current = parent == "world" ? std::nullopt : std::optional(index.at(parent));
      }
      if (current && state[*current] == State::OnChain) {
        const model::Frame& f = written[*current].frame;
        fail(f.where, "cycle in the frame tree: the frame is its own ancestor", f.name);
      }
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        state[*it] = State::Placed;
        model_->frames.push_back(written[*it].frame);
      }
    }
  }

  std::vector<model::RotationFactor> read_rotation(const Item& value, const std::string& frame) {
    if (value.node.IsScalar())
      return parse_rotation(text(value), scope_, source_.locator(value.node));
    const auto m = matrix3(value, Dependence::Anything);
    if (!m)
      fail(value.where,
           "expected rot_x(a), rot_y(a), rot_z(a), rot(ax, ay, az, a), a product of them, or a "
           "3x3 matrix as a list of three rows",
           value.key);
    if (auto numbers = numeric_matrix(*m); numbers && !is_rotation(*numbers))
      fail(value.where, "rotation is not a rotation matrix (orthonormal with determinant +1)",
           frame);
    model::RotationFactor factor;
    factor.kind = model::RotationFactor::Kind::Matrix;
    factor.matrix = *m;
    return {factor};
  }

  /// The entries as numbers if none depends on a symbol (parameters included: they may be set).
  static std::optional<std::array<std::array<double, 3>, 3>> numeric_matrix(
      const GiNaC::matrix& m) {
    std::array<std::array<double, 3>, 3> numbers{};
    for (unsigned i = 0; i < 3; ++i)
      for (unsigned j = 0; j < 3; ++j) {
        const ex e = GiNaC::evalf(m(i, j));
        if (!GiNaC::is_a<GiNaC::numeric>(e) || !GiNaC::ex_to<GiNaC::numeric>(e).is_real())
          return std::nullopt;
        numbers[i][j] = GiNaC::ex_to<GiNaC::numeric>(e).to_double();
      }
    return numbers;
  }

  static bool is_rotation(const std::array<std::array<double, 3>, 3>& r) {
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 3; ++j) {
        double rtr = 0;  // (RᵀR)(i, j)
        for (std::size_t k = 0; k < 3; ++k) rtr += r[k][i] * r[k][j];
        if (std::abs(rtr - (i == j ? 1.0 : 0.0)) > kRotationTolerance) return false;
      }
    const double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) -
                       r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
                       r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
    return std::abs(det - 1.0) <= kRotationTolerance;
  }

  /// A frame that the model defines, or world.
  std::string frame_name(const Item& value) const {
    const std::string name = text(value);
    if (!model_->frame_index(name)) fail(value.where, "unknown frame", name);
    return name;
  }

  ex mass(const Item& value, const std::string& owner) {
    const ex m = expression(value, Dependence::Parameters);
    const auto number = at_defaults(m);
    if (!number) fail(value.where, "mass is not a real number", owner);
    if (*number <= 0.0) fail(value.where, "mass must be positive", owner);
    return m;
  }

  void read_bodies(const std::vector<Definition>& definitions) {
    for (const auto& d : definitions) {
      const Fields fields(*this, d.value, "a body", {"frame", "mass", "com", "inertia"});
      model::Body body;
      body.name = d.name;
      body.where = d.where;
      body.frame = frame_name(fields.require("frame"));
      body.mass = mass(fields.require("mass"), d.name);
      if (auto com = fields.find("com")) body.com = vector3(*com, Dependence::Anything);
      body.inertia = GiNaC::matrix(3, 3);
      if (auto inertia = fields.find("inertia")) body.inertia = read_inertia(*inertia, body.mass);
      body_index_[d.name] = model_->bodies.size();
      model_->bodies.push_back(std::move(body));
    }
  }

  static GiNaC::matrix diagonal(const ex& xx, const ex& yy, const ex& zz) {
    GiNaC::matrix m(3, 3);
    m(0, 0) = xx;
    m(1, 1) = yy;
    m(2, 2) = zz;
    return m;
  }

  /// Inertia about the centre of mass in the body frame's axes, from any form of the format.
  GiNaC::matrix read_inertia(const Item& value, const ex& mass) {
    if (value.node.IsSequence()) {
      if (auto m = matrix3(value, Dependence::Parameters)) {
        for (unsigned i = 0; i < 3; ++i)
          for (unsigned j = i + 1; j < 3; ++j)
            if (!((*m)(i, j) - (*m)(j, i)).expand().is_zero())
              fail(value.where, "inertia matrix must be symmetric", value.key);
        return *m;
      }
      if (value.node.size() == 6) {
        // [Ixx, Iyy, Izz, Ixy, Iyz, Ixz]: the tensor's own entries, so Ixy = -∫xy dm.
        std::array<ex, 6> e;
        std::size_t k = 0;
        for (const auto& entry : list(value, "entries"))
          e[k++] = expression(entry, Dependence::Parameters);
        GiNaC::matrix m = diagonal(e[0], e[1], e[2]);
        m(0, 1) = m(1, 0) = e[3];
        m(1, 2) = m(2, 1) = e[4];
        m(0, 2) = m(2, 0) = e[5];
        return m;
      }
      fail(value.where,
           "inertia must be a 3x3 matrix (list of rows) or [Ixx, Iyy, Izz, Ixy, Iyz, Ixz]",
           value.key);
    }
    if (!value.node.IsMap())
      fail(value.where, "inertia must be a 3x3 matrix, [Ixx, Iyy, Izz, Ixy, Iyz, Ixz] or a shape",
           value.key);

    const Fields shapes(*this, value, "an inertia", {"rod", "disk", "cylinder", "box", "sphere"});
    if (shapes.entries().size() != 1)
      fail(value.where, "inertia shape: give exactly one of rod, disk, cylinder, box, sphere",
           value.key);
    const Entry& shape = shapes.entries().front();
    const std::string& kind = shape.key;
    if (kind == "rod") {
      // Thin rod: m L²/12 about the transverse axes, nothing about its own.
      const Fields f(*this, shape.value, "a rod", {"length", "axis"});
      const ex length = expression(f.require("length"), Dependence::Parameters);
      return axisymmetric(f.require("axis"), 0, mass * GiNaC::pow(length, 2) / 12);
    }
    if (kind == "disk") {
      // Thin disk: m r²/2 about its normal, m r²/4 about a diameter.
      const Fields f(*this, shape.value, "a disk", {"radius", "axis"});
      const ex radius = expression(f.require("radius"), Dependence::Parameters);
      return axisymmetric(f.require("axis"), mass * GiNaC::pow(radius, 2) / 2,
                          mass * GiNaC::pow(radius, 2) / 4);
    }
    if (kind == "cylinder") {
      // Solid cylinder: m r²/2 axial, m (3 r² + L²)/12 transverse.
      const Fields f(*this, shape.value, "a cylinder", {"radius", "length", "axis"});
      const ex radius = expression(f.require("radius"), Dependence::Parameters);
      const ex length = expression(f.require("length"), Dependence::Parameters);
      return axisymmetric(f.require("axis"), mass * GiNaC::pow(radius, 2) / 2,
                          mass * (3 * GiNaC::pow(radius, 2) + GiNaC::pow(length, 2)) / 12);
    }
    if (kind == "box") {
      // Box of edges a, b, c along x, y, z: Ixx = m (b² + c²)/12 and so on.
      const Fields f(*this, shape.value, "a box", {"size"});
      const model::Vector3 size = vector3(f.require("size"), Dependence::Parameters);
      const ex a2 = GiNaC::pow(size[0], 2), b2 = GiNaC::pow(size[1], 2),
               c2 = GiNaC::pow(size[2], 2);
      return diagonal(mass * (b2 + c2) / 12, mass * (a2 + c2) / 12, mass * (a2 + b2) / 12);
    }
    // Solid sphere: 2/5 m r² about every axis.
    const Fields f(*this, shape.value, "a sphere", {"radius"});
    const ex moment = GiNaC::numeric(2, 5) * mass *
                      GiNaC::pow(expression(f.require("radius"), Dependence::Parameters), 2);
    return diagonal(moment, moment, moment);
  }

  /// Diagonal inertia of a body symmetric about `axis` (x, y or z).
  GiNaC::matrix axisymmetric(const Item& axis, const ex& axial, const ex& transverse) const {
    const std::string name = text(axis);
    if (name != "x" && name != "y" && name != "z") fail(axis.where, "axis must be x, y or z", name);
    return diagonal(name == "x" ? axial : transverse, name == "y" ? axial : transverse,
                    name == "z" ? axial : transverse);
  }

  void read_particles(const std::vector<Definition>& definitions) {
    for (const auto& d : definitions) {
      const Fields fields(*this, d.value, "a particle", {"frame", "mass", "position"});
      model::Particle particle;
      particle.name = d.name;
      particle.where = d.where;
      particle.frame = frame_name(fields.require("frame"));
      particle.mass = mass(fields.require("mass"), d.name);
      if (auto position = fields.find("position"))
        particle.position = vector3(*position, Dependence::Anything);
      model_->particles.push_back(std::move(particle));
    }
  }

  // -- loads ----------------------------------------------------------------------------------

  /// The frame a load acts on (a body acts through its frame) and its default point.
  model::PointRef attachment(const Item& value) const {
    const std::string name = text(value);
    if (model_->frame_index(name)) return model::PointRef{name, {0, 0, 0}};
    if (auto body = body_index_.find(name); body != body_index_.end()) {
      const model::Body& b = model_->bodies[body->second];
      return model::PointRef{b.frame, b.com};
    }
    fail(value.where, "unknown frame or body", name);
  }

  /// [FRAME_OR_BODY, [x, y, z]]: a point fixed in a frame, components along its axes.
  model::PointRef point(const Item& value) {
    if (!value.node.IsSequence() || value.node.size() != 2)
      fail(value.where, "expected [FRAME, [x, y, z]]", value.key);
    const auto parts = list(value, "a frame and a point");
    model::PointRef p = attachment(parts[0]);
    p.point = vector3(parts[1], Dependence::Anything);
    return p;
  }

  void read_loads(const Item& section) {
    static const std::vector<std::string> kinds = {"force",  "torque",      "spring",
                                                   "damper", "generalized", "potential"};
    for (const auto& load_item : list(section, "loads")) {
      if (!load_item.node.IsMap())
        fail(load_item.where, "a load is a map with one of " + join_alternatives(kinds));
      std::optional<Entry> kind;
      for (const auto& e : entries(load_item, "keys")) {
        if (std::find(kinds.begin(), kinds.end(), e.key) == kinds.end()) continue;
        if (kind) fail(e.key_where, "a load has one kind only, already " + kind->key, e.key);
        kind = e;
      }
      if (!kind) fail(load_item.where, "a load needs one of " + join_alternatives(kinds));
      model::Load load;
      load.where = load_item.where;
      load.kind = read_load(kind->key, load_item);
      model_->loads.push_back(std::move(load));
    }
  }

  model::LoadKind read_load(const std::string& kind, const Item& load) {
    if (kind == "force") {
      const Fields f(*this, load, "a force", {"force", "on", "at", "in"});
      model::ForceLoad force;
      force.force = vector3(f.require("force"), Dependence::Anything);
      force.at = attachment(f.require("on"));
      if (auto at = f.find("at")) force.at.point = vector3(*at, Dependence::Anything);
      if (auto in = f.find("in")) force.in = frame_name(*in);
      return force;
    }
    if (kind == "torque") {
      const Fields f(*this, load, "a torque", {"torque", "on", "in"});
      model::TorqueLoad torque;
      torque.torque = vector3(f.require("torque"), Dependence::Anything);
      torque.on = attachment(f.require("on")).frame;
      if (auto in = f.find("in")) torque.in = frame_name(*in);
      return torque;
    }
    if (kind == "spring") {
      const Fields outer(*this, load, "a spring load", {"spring"});
      const Fields f(*this, outer.require("spring"), "a spring",
                     {"from", "to", "stiffness", "rest_length"});
      model::SpringLoad spring;
      spring.from = point(f.require("from"));
      spring.to = point(f.require("to"));
      spring.stiffness = expression(f.require("stiffness"), Dependence::Anything);
      if (auto rest = f.find("rest_length"))
        spring.rest_length = expression(*rest, Dependence::Anything);
      return spring;
    }
    if (kind == "damper") {
      const Fields outer(*this, load, "a damper load", {"damper"});
      const Fields f(*this, outer.require("damper"), "a damper", {"from", "to", "coefficient"});
      model::DamperLoad damper;
      damper.from = point(f.require("from"));
      damper.to = point(f.require("to"));
      damper.coefficient = expression(f.require("coefficient"), Dependence::Anything);
      return damper;
    }
    if (kind == "generalized") {
      const Fields outer(*this, load, "a generalized load", {"generalized"});
      const Fields f(*this, outer.require("generalized"), "a generalized force",
                     {"coordinate", "value"});
      const Item coordinate = f.require("coordinate");
      const std::string name = text(coordinate);
      const auto& all = model_->coordinates;
      const auto found = std::find_if(all.begin(), all.end(),
                                      [&](const model::Coordinate& c) { return c.name == name; });
      if (found == all.end()) fail(coordinate.where, "unknown coordinate", name);
      model::GeneralizedLoad generalized;
      generalized.coordinate = static_cast<std::size_t>(found - all.begin());
      generalized.value = expression(f.require("value"), Dependence::Anything);
      return generalized;
    }
    const Fields f(*this, load, "a potential", {"potential"});
    return model::PotentialLoad{expression(f.require("potential"), Dependence::Anything)};
  }

  // -- carrier frame --------------------------------------------------------------------------

  // The carrier's motion must be given (t and prescribed functions), not a degree of freedom:
  // neither it nor any frame above it may move with a coordinate.
  void read_carrier(const Item& value) {
    const std::string name = text(value);
    auto index = model_->frame_index(name);
    if (!index || *index < 0) fail(value.where, "relative_to needs a frame other than world", name);
    for (int i = *index; i >= 0;
         i = *model_->frame_index(model_->frames[static_cast<std::size_t>(i)].parent)) {
      const model::Frame& f = model_->frames[static_cast<std::size_t>(i)];
      GiNaC::exvector parts(f.translation.begin(), f.translation.end());
      for (const auto& r : f.rotation) {
        parts.push_back(r.angle);
        for (unsigned k = 0; k < r.matrix.nops(); ++k) parts.push_back(r.matrix.op(k));
      }
      for (std::size_t j = 0; j < model_->dof(); ++j)
        for (int order = 0; order <= 2; ++order)
          for (const auto& e : parts)
            if (e.has(model_->coordinate_symbol(j, order)))
              fail(value.where,
                   "the carrier frame moves with the coordinate " + model_->coordinates[j].name +
                       " (through frame " + f.name +
                       "); its motion must depend on t and "
                       "prescribed functions only",
                   name);
    }
    model_->relative_to = name;
    model_->relative_to_where = value.where;
  }

  // -- flexible bodies (docs/model-format.md, "Flexible bodies") --------------------------------

  void read_flexible_bodies(const Item& section) {
    std::map<std::string, SourceLocation> names;
    for (const auto& item : list(section, "flexible bodies")) {
      const Fields f(*this, item, "a flexible body",
                     {"name", "frame", "mesh", "material", "clamp", "prescribed", "loads",
                      "stiffening", "damping"});
      model::FlexibleBody body;
      const Item name_item = f.require("name");
      body.name = text(name_item);
      body.where = item.where;
      if (!is_valid_name(body.name)) fail(name_item.where, "not a valid name", body.name);
      if (!names.emplace(body.name, name_item.where).second)
        fail(name_item.where, "duplicate flexible body name", body.name);
      body.frame = frame_name(f.require("frame"));
      const Item mesh = f.require("mesh");
      body.mesh = read_mesh_spec(mesh, body.name);
      body.mesh_where = mesh.where;
      read_material(f.require("material"), body);
      if (auto clamp = f.find("clamp")) {
        if (clamp->node.IsSequence())
          for (const auto& selection : list(*clamp, "node selections"))
            body.clamp.push_back(node_selection(selection));
        else
          body.clamp.push_back(node_selection(*clamp));
      }
      if (auto prescribed = f.find("prescribed"))
        for (const auto& p : list(*prescribed, "prescribed displacements")) {
          const Fields pf(*this, p, "a prescribed displacement", {"at", "displacement"});
          body.prescribed.push_back(
              {node_selection(pf.require("at")),
               vector3(pf.require("displacement"), Dependence::TimeAndParameters), p.where});
        }
      if (auto loads = f.find("loads"))
        for (const auto& l : list(*loads, "loads on a flexible body")) {
          const Fields lf(*this, l, "a load on a flexible body", {"at", "force", "body_force"});
          model::FlexibleLoad load;
          load.where = l.where;
          const auto at = lf.find("at"), force = lf.find("force"),
                     body_force = lf.find("body_force");
          if (body_force) {
            if (at || force)
              fail(l.where, "a body_force acts on the whole body: no `at` and no `force`",
                   body.name);
            load.force = vector3(*body_force, Dependence::TimeAndParameters);
          } else {
            if (!at || !force)
              fail(l.where, "a nodal load needs `at` (a node selection) and `force` [Fx, Fy, Fz]",
                   body.name);
            load.at = node_selection(*at);
            load.force = vector3(*force, Dependence::TimeAndParameters);
          }
          body.loads.push_back(std::move(load));
        }
      if (auto stiffening = f.find("stiffening")) body.stiffening = boolean(*stiffening);
      if (auto damping = f.find("damping")) {
        const Fields df(*this, *damping, "Rayleigh damping", {"alpha", "beta"});
        if (auto alpha = df.find("alpha")) body.rayleigh_alpha = non_negative(*alpha);
        if (auto beta = df.find("beta")) body.rayleigh_beta = non_negative(*beta);
      }
      model_->flexible.push_back(std::move(body));
    }
  }

  bool boolean(const Item& value) const {
    const std::string written = text(value);
    if (written == "true") return true;
    if (written == "false") return false;
    fail(value.where, "expected true or false", value.key);
  }

  ex non_negative(const Item& value) {
    const ex e = expression(value, Dependence::Parameters);
    const auto number = at_defaults(e);
    if (!number || *number < 0.0) fail(value.where, "expected a number >= 0", value.key);
    return e;
  }

  ex positive(const Item& value) {
    const ex e = expression(value, Dependence::Parameters);
    const auto number = at_defaults(e);
    if (!number || *number <= 0.0) fail(value.where, "expected a positive number", value.key);
    return e;
  }

  int count(const Item& value) const {
    const std::string written = text(value);
    std::size_t used = 0;
    long n = 0;
    try {
      n = std::stol(written, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != written.size() || n < 1 || n > 10'000'000)
      fail(value.where, "expected a whole number >= 1", value.key);
    return static_cast<int>(n);
  }

  model::MeshSpec read_mesh_spec(const Item& value, const std::string& body) {
    const Fields f(*this, value, "a mesh", {"box", "beam", "gmsh"});
    if (f.entries().size() != 1) fail(value.where, "a mesh is one of box, beam or gmsh", body);
    const Entry& kind = f.entries().front();
    if (kind.key == "box") {
      const Fields bf(*this, kind.value, "a box mesh", {"size", "divisions"});
      model::BoxMeshSpec box;
      const Item size = bf.require("size");
      if (!size.node.IsSequence() || size.node.size() != 3)
        fail(size.where, "expected [L, b, h]", "size");
      std::size_t k = 0;
      for (const auto& component : list(size, "lengths")) box.size[k++] = positive(component);
      const Item divisions = bf.require("divisions");
      if (!divisions.node.IsSequence() || divisions.node.size() != 3)
        fail(divisions.where, "expected [nx, ny, nz]", "divisions");
      k = 0;
      for (const auto& n : list(divisions, "divisions")) box.divisions[k++] = count(n);
      return box;
    }
    if (kind.key == "beam") {
      const Fields bf(*this, kind.value, "a beam mesh",
                      {"length", "elements", "section", "planar"});
      model::BeamMeshSpec beam;
      beam.length = positive(bf.require("length"));
      beam.elements = count(bf.require("elements"));
      if (auto planar = bf.find("planar")) beam.planar = boolean(*planar);
      const Fields sf(*this, bf.require("section"), "a beam section", {"area", "Iy", "Iz", "J"});
      beam.area = positive(sf.require("area"));
      beam.Iz = positive(sf.require("Iz"));
      // A planar beam bends in the x–y plane only: Iy and J are not used and may be omitted.
      if (auto iy = sf.find("Iy"))
        beam.Iy = positive(*iy);
      else if (!beam.planar)
        fail(kind.value.where, "missing required key", "Iy");
      if (auto j = sf.find("J"))
        beam.J = positive(*j);
      else if (!beam.planar)
        fail(kind.value.where, "missing required key", "J");
      return beam;
    }
    model::GmshMeshSpec gmsh;
    gmsh.path = text(kind.value);
    const std::filesystem::path written(gmsh.path);
    if (written.is_relative() && !model_->source.empty())
      gmsh.path = (std::filesystem::path(model_->source).parent_path() / written).string();
    return gmsh;
  }

  void read_material(const Item& value, model::FlexibleBody& body) {
    const Fields f(*this, value, "a material", {"E", "nu", "rho"});
    body.material_where = value.where;
    body.youngs_modulus = positive(f.require("E"));
    body.density = positive(f.require("rho"));
    const Item nu = f.require("nu");
    body.poisson_ratio = expression(nu, Dependence::Parameters);
    const auto number = at_defaults(body.poisson_ratio);
    if (!number) fail(nu.where, "expected a real number", "nu");
    // ν = 0.5 makes the bulk modulus infinite (D singular); ν <= -1 makes the shear modulus
    // non-positive. Neither is an elastic solid this displacement formulation can represent.
    if (*number >= 0.5 || *number <= -1.0)
      fail(nu.where, "Poisson's ratio must lie in (-1, 0.5); got " + format_number(*number), "nu");
  }

  static std::string format_number(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
  }

  model::NodeSelection node_selection(const Item& value) {
    const Fields f(*this, value, "a node selection", {"x", "y", "z", "nodes", "group"});
    model::NodeSelection selection;
    selection.where = value.where;
    const char* axes[] = {"x", "y", "z"};
    for (int k = 0; k < 3; ++k)
      if (auto plane = f.find(axes[k]))
        selection.plane[static_cast<std::size_t>(k)] = expression(*plane, Dependence::Parameters);
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
        if (used != written.size() || index < 0)
          fail(n.where, "expected a node index (0, 1, 2, ...)", written);
        selection.nodes.push_back(index);
      }
    if (auto group = f.find("group")) selection.group = text(*group);
    if (f.entries().empty())
      fail(value.where, "a node selection needs x, y, z (planes), nodes or group");
    return selection;
  }

  // -- constraints ----------------------------------------------------------------------------

  void read_constraints(const Item& section) {
    std::map<std::string, SourceLocation> names;
    for (const auto& item : list(section, "constraints")) {
      const Fields f(*this, item, "a constraint", {"name", "holonomic", "nonholonomic"});
      const Item name_item = f.require("name");
      model::Constraint c;
      c.name = text(name_item);
      c.where = item.where;
      if (!is_valid_name(c.name)) fail(name_item.where, "not a valid name", c.name);
      if (!names.emplace(c.name, name_item.where).second)
        fail(name_item.where, "duplicate constraint name", c.name);
      const auto holonomic = f.find("holonomic"), nonholonomic = f.find("nonholonomic");
      if (holonomic.has_value() == nonholonomic.has_value())
        fail(item.where, "a constraint is either holonomic or nonholonomic", c.name);
      const Item& value = holonomic ? *holonomic : *nonholonomic;
      c.kind =
          holonomic ? model::Constraint::Kind::Holonomic : model::Constraint::Kind::Nonholonomic;
      c.expression = expression(value, Dependence::Anything);
      check_constraint(c, value);
      model_->constraints.push_back(std::move(c));
    }
  }

  // A holonomic constraint may not use velocities; a nonholonomic one must be linear in them
  // (a(q, t)·q̇ + a0): otherwise the multiplier form M q̈ = f + Aᵀλ does not apply.
  void check_constraint(const model::Constraint& c, const Item& value) const {
    std::vector<GiNaC::symbol> velocities;
    for (std::size_t j = 0; j < model_->dof(); ++j) {
      if (c.expression.has(model_->coordinate_symbol(j, 2)))
        fail(value.where, "a constraint may not use accelerations", c.name);
      velocities.push_back(model_->coordinate_symbol(j, 1));
    }
    for (const auto& v : velocities) {
      if (c.kind == model::Constraint::Kind::Holonomic && c.expression.has(v))
        fail(value.where,
             "a holonomic constraint depends on the coordinates and t only; write one with "
             "velocities as nonholonomic",
             c.name);
      const GiNaC::ex coefficient = c.expression.diff(v);
      for (const auto& w : velocities)
        if (!coefficient.diff(w).is_zero())
          fail(value.where, "a nonholonomic constraint must be linear in the velocities", c.name);
    }
  }

  // -- independent speeds (minimal form) -----------------------------------------------------

  void read_independent(const Item& section) {
    const std::size_t n = model_->dof(), m = model_->constraints.size();
    model_->independent_where = section.where;
    if (!section.node.IsSequence())
      fail(section.where, "expected a list of coordinate names", "independent");
    for (const auto& item : list(section, "coordinate names")) {
      const std::string name = text(item);
      std::size_t j = 0;
      while (j < n && model_->coordinates[j].name != name) ++j;
      if (j == n) fail(item.where, "not a coordinate of the model", name);
      if (std::find(model_->independent.begin(), model_->independent.end(), j) !=
          model_->independent.end())
        fail(item.where, "listed twice", name);
      model_->independent.push_back(j);
    }
    // One independent speed per degree of freedom left by the constraints.
    if (model_->independent.size() != n - std::min(n, m))
      fail(section.where,
           "needs " + std::to_string(n - std::min(n, m)) + " independent speeds (" +
               std::to_string(n) + " coordinates - " + std::to_string(m) + " constraints), got " +
               std::to_string(model_->independent.size()),
           "independent");
    check_dependent_block();
  }

  // The constraints must determine the dependent speeds: A_d (the columns of the velocity-level
  // constraint matrix A that belong to the dependent speeds) must be invertible. Checked at the
  // initial state (parameters at their defaults, t = 0, inputs and unspecified functions 0), where
  // a poor choice of independent speeds shows before any equation is formed.
  void check_dependent_block() const {
    const std::size_t n = model_->dof(), m = model_->constraints.size();
    if (m == 0) return;
    std::vector<std::size_t> dependent;
    for (std::size_t j = 0; j < n; ++j)
      if (std::find(model_->independent.begin(), model_->independent.end(), j) ==
          model_->independent.end())
        dependent.push_back(j);
    GiNaC::exmap at_start = defaults_;
    at_start[model_->time_functions->time()] = 0;
    for (std::size_t j = 0; j < n; ++j)
      at_start[model_->coordinate_symbol(j)] = GiNaC::numeric(model_->coordinates[j].initial);
    for (const auto& p : model_->prescribed)
      if (!p.expression)
        for (int order = 0; order <= 3; ++order)
          if (auto s = model_->time_functions->find_derivative(p.name, order)) at_start[*s] = 0;
    for (const auto& input : model_->inputs)
      for (int order = 0; order <= 3; ++order)
        if (auto s = model_->time_functions->find_derivative(input.name, order)) at_start[*s] = 0;
    GiNaC::matrix block(static_cast<unsigned>(m), static_cast<unsigned>(m));
    double hadamard = 1.0;  // product of the rows' norms: |det| is at most that
    std::string names;
    for (std::size_t k = 0; k < dependent.size(); ++k)
      names += (k ? ", " : "") + model_->coordinates[dependent[k]].name;
    for (std::size_t i = 0; i < m; ++i) {
      const model::Constraint& c = model_->constraints[i];
      double row = 0.0;
      for (std::size_t k = 0; k < m; ++k) {
        // Holonomic φ: φ̇ = Σ ∂φ/∂q_j q̇_j + ∂φ/∂t; nonholonomic: the velocity's coefficient.
        const std::size_t j = dependent[k];
        const GiNaC::ex coefficient = c.kind == model::Constraint::Kind::Holonomic
                                          ? c.expression.diff(model_->coordinate_symbol(j))
                                          : c.expression.diff(model_->coordinate_symbol(j, 1));
        GiNaC::ex value;
        try {
          value = GiNaC::evalf(sym::substitute(coefficient, at_start));
        } catch (const std::exception&) {
          value = GiNaC::ex();
        }
        if (!GiNaC::is_a<GiNaC::numeric>(value) || !GiNaC::ex_to<GiNaC::numeric>(value).is_real())
          return;  // no value at the initial state: left to the minimal form's evaluation
        const double v = GiNaC::ex_to<GiNaC::numeric>(value).to_double();
        block(static_cast<unsigned>(i), static_cast<unsigned>(k)) = v;
        row += v * v;
      }
      hadamard *= std::sqrt(row);
    }
    const double det = GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(block.determinant())).to_double();
    if (!(std::abs(det) > 1e-12 * hadamard))
      fail(model_->independent_where,
           "with these independent speeds the constraints do not determine the dependent ones (" +
               names +
               "): their block of the constraint Jacobian is singular at the initial state; list "
               "other independent speeds",
           "independent");
  }

  SourceText source_;
  std::shared_ptr<model::Model> model_;
  ExpressionScope scope_;
  GiNaC::exmap defaults_;  // parameter symbol -> default value, for checks of numbers and masses
  std::map<std::string, std::size_t> body_index_;
};

}  // namespace

std::shared_ptr<const model::Model> parse_model(const std::string& yaml_text,
                                                const std::string& source_name) {
  return ModelReader(yaml_text, source_name).read();
}

std::shared_ptr<const model::Model> read_model_file(const std::string& path) {
  const SourceLocation file{path, 0, 0};
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw ModelError(file, "no such model file");
  if (std::filesystem::is_directory(path, error))
    throw ModelError(file, "is a directory, not a model file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(file, "cannot read the model file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_model(text.str(), path);
}

}  // namespace appell::io
