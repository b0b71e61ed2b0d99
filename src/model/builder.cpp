#include "appell/model/builder.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <utility>
#include <variant>

#include "appell/model/closest_name.hpp"
#include "appell/sym/dag.hpp"
#include "appell/sym/finite_number.hpp"
#include "inertia_check.hpp"

namespace appell::model {

using GiNaC::ex;

namespace {

constexpr double kRotationTolerance = 1e-9;

GiNaC::matrix diagonal(const ex& xx, const ex& yy, const ex& zz) {
  GiNaC::matrix m(3, 3);
  m(0, 0) = xx;
  m(1, 1) = yy;
  m(2, 2) = zz;
  return m;
}

/// The entries as numbers if none depends on a symbol (parameters included: they may be set).
std::optional<std::array<std::array<double, 3>, 3>> numeric_matrix(const GiNaC::matrix& m) {
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

bool is_rotation(const std::array<std::array<double, 3>, 3>& r) {
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

std::string format_number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string described(const SourceLocation& where) {
  if (where.line > 0)
    return "at line " + std::to_string(where.line) + ", column " + std::to_string(where.column);
  return "as " + where.str();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Values given to the builder

Expr::Expr(double value) {
  // The shortest decimal that reads back as the same double, kept exact by the parser.
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  value_ = std::string(buffer, result.ptr);
}

Expr Expr::at(Origin origin) const {
  Expr located = *this;
  located.origin_ = std::move(origin);
  return located;
}

Rotation::Rotation(const char* text) : Rotation(std::string(text)) {}
Rotation::Rotation(std::string text) { parts_.push_back({Part::Kind::Text, std::move(text), {}}); }

Rotation Rotation::x(const Expr& angle) { return about({1, 0, 0}, angle); }
Rotation Rotation::y(const Expr& angle) { return about({0, 1, 0}, angle); }
Rotation Rotation::z(const Expr& angle) { return about({0, 0, 1}, angle); }

Rotation Rotation::about(const Expr3& axis, const Expr& angle) {
  Rotation r;
  r.parts_.push_back({Part::Kind::Axis, "", {axis[0], axis[1], axis[2], angle}});
  return r;
}

Rotation Rotation::quaternion(const Name& e0, const Name& e1, const Name& e2, const Name& e3) {
  return Rotation("rot_quat(" + e0.text + ", " + e1.text + ", " + e2.text + ", " + e3.text + ")");
}

Rotation Rotation::matrix(const std::array<Expr3, 3>& rows) {
  Rotation r;
  Part part{Part::Kind::Matrix, "", {}};
  for (const auto& row : rows)
    for (const auto& entry : row) part.values.push_back(entry);
  r.parts_.push_back(std::move(part));
  return r;
}

Rotation Rotation::operator*(const Rotation& then) const {
  Rotation product = *this;
  product.parts_.insert(product.parts_.end(), then.parts_.begin(), then.parts_.end());
  return product;
}

Rotation Rotation::at(Origin origin) const {
  Rotation located = *this;
  located.origin_ = std::move(origin);
  return located;
}

Inertia Inertia::matrix(const std::array<Expr3, 3>& rows) {
  Inertia in;
  in.kind_ = Kind::Matrix;
  for (const auto& row : rows)
    for (const auto& entry : row) in.values_.push_back(entry);
  return in;
}

Inertia Inertia::entries(const Expr& ixx, const Expr& iyy, const Expr& izz, const Expr& ixy,
                         const Expr& iyz, const Expr& ixz) {
  Inertia in;
  in.kind_ = Kind::Entries;
  in.values_ = {ixx, iyy, izz, ixy, iyz, ixz};
  return in;
}

Inertia Inertia::rod(const Expr& length, const Name& axis) {
  Inertia in;
  in.kind_ = Kind::Rod;
  in.values_ = {length};
  in.axis_ = axis;
  return in;
}

Inertia Inertia::disk(const Expr& radius, const Name& axis) {
  Inertia in;
  in.kind_ = Kind::Disk;
  in.values_ = {radius};
  in.axis_ = axis;
  return in;
}

Inertia Inertia::cylinder(const Expr& radius, const Expr& length, const Name& axis) {
  Inertia in;
  in.kind_ = Kind::Cylinder;
  in.values_ = {radius, length};
  in.axis_ = axis;
  return in;
}

Inertia Inertia::box(const Expr3& size) {
  Inertia in;
  in.kind_ = Kind::Box;
  in.values_ = {size[0], size[1], size[2]};
  return in;
}

Inertia Inertia::sphere(const Expr& radius) {
  Inertia in;
  in.kind_ = Kind::Sphere;
  in.values_ = {radius};
  return in;
}

Inertia Inertia::at(Origin origin) const {
  Inertia located = *this;
  located.origin_ = std::move(origin);
  return located;
}

// ---------------------------------------------------------------------------------------------
// The builder: places, names, expressions

ModelBuilder::ModelBuilder(const std::string& name, const std::string& source)
    : model_(std::make_shared<Model>()), scope_(model_->time_functions) {
  model_->name = name;
  model_->source = source;
}

ModelBuilder& ModelBuilder::description(const std::string& text) {
  check_usable();
  model_->description = text;
  return *this;
}

void ModelBuilder::check_usable() const {
  if (built_)
    throw ModelError(SourceLocation{model_->name},
                     "the model was already built; start a new builder");
}

SourceLocation ModelBuilder::place(const SourceLocation& where, const std::string& item) const {
  if (where.line > 0 || !where.file.empty()) return where;
  return SourceLocation{item, 0, 0};
}

void ModelBuilder::fail(const SourceLocation& where, const std::string& item,
                        const std::string& message, const std::string& offending) const {
  throw ModelError(place(where, item), message, offending);
}

void ModelBuilder::declare_names(const std::vector<Name>& names) {
  for (const auto& n : names) {
    if (!is_valid_name(n.text))
      fail(n.where, n.text, "invalid name: a letter followed by letters, digits or _", n.text);
    if (is_reserved_name(n.text)) fail(n.where, n.text, "reserved name", n.text);
    if (auto earlier = defined_.find(n.text); earlier != defined_.end())
      fail(n.where, n.text, "name already defined " + described(earlier->second), n.text);
    defined_.emplace(n.text, place(n.where, n.text));
  }
}

// Each name once, whatever its kind, so that `on: NAME` in a load cannot be ambiguous. A name
// declared before (declare_names) at the same place is this very definition.
void ModelBuilder::define(const Name& name, const std::string& item) {
  check_usable();
  const SourceLocation where = place(name.where, item);
  if (!is_valid_name(name.text))
    fail(where, item, "invalid name: a letter followed by letters, digits or _", name.text);
  if (is_reserved_name(name.text)) fail(where, item, "reserved name", name.text);
  if (auto earlier = defined_.find(name.text); earlier != defined_.end()) {
    const bool same_place = earlier->second.file == where.file &&
                            earlier->second.line == where.line &&
                            earlier->second.column == where.column;
    if (!same_place || added_.count(name.text))
      fail(where, item, "name already defined " + described(earlier->second), name.text);
  }
  defined_.emplace(name.text, where);
  added_.insert(name.text);
}

GiNaC::ex ModelBuilder::expression(const Expr& e, Dependence allowed,
                                   const std::string& item) const {
  const Origin& origin = e.origin();
  if (e.is_text()) {
    TextLocator locate = origin.locate;
    if (!locate) {
      if (origin.known()) {
        locate = locate_on_one_line(origin.where);
      } else {
        locate = [item](std::size_t offset) {
          return SourceLocation{item + ", character " + std::to_string(offset + 1), 0, 0};
        };
      }
    }
    const ex parsed = parse_expression(e.text(), scope_, locate, allowed);
    if (allowed != Dependence::Parameters) check_numbers(parsed, place(origin.where, item));
    return parsed;
  }
  // A GiNaC expression built in code: every symbol must be one of the builder's, and allowed here
  // by the same rule the parser applies to text (model::allows).
  const SourceLocation where = place(origin.where, item);
  if (const auto use = first_not_allowed(e.value(), *model_, allowed)) {
    if (use->kind == SymbolKind::Unknown)
      throw ModelError(where,
                       "unknown symbol in expression: use the symbols the builder returned "
                       "(parameter(), coordinate(), input(), time(), derivative())",
                       use->name);
    throw ModelError(where, not_allowed_message(allowed, use->kind, use->name), use->name);
  }
  if (allowed != Dependence::Parameters) check_numbers(e.value(), where);
  return e.value();
}

// Literals are checked as the parser reads them; what exact arithmetic makes of them (1e200 *
// 1e200, a GiNaC number built in code) must fit a double too, or every evaluation would see 0 or
// inf where the equations print a number. Fields of numbers and parameters only are not walked:
// their callers evaluate them at the defaults and refuse a value that is not a finite real with
// the field's own message (a parameter, a mass, a size).
void ModelBuilder::check_numbers(const ex& e, const SourceLocation& where) const {
  sym::for_each_node({e}, [&](const ex& node) {
    if (GiNaC::is_a<GiNaC::numeric>(node) && !fits_double(GiNaC::ex_to<GiNaC::numeric>(node))) {
      std::ostringstream number;
      number << GiNaC::evalf(node);
      throw ModelError(where,
                       "number out of range: a double holds 0 and magnitudes from 2.2e-308 to "
                       "1.8e308, and this number would become 0 or inf",
                       number.str());
    }
  });
}

Vector3 ModelBuilder::vector3(const Expr3& v, Dependence allowed, const std::string& item) const {
  return {expression(v[0], allowed, item + "[0]"), expression(v[1], allowed, item + "[1]"),
          expression(v[2], allowed, item + "[2]")};
}

std::optional<double> ModelBuilder::at_defaults(const ex& e) const {
  try {
    // Checked step by step (sym/finite_number.hpp): CLN alone takes exp(exp(1000)) for 1.
    return sym::finite_double(e, defaults_);
  } catch (const std::exception&) {
    // GiNaC's pole and division errors: no value, reported by the caller at its place.
  }
  return std::nullopt;
}

double ModelBuilder::number(const Expr& e, const std::string& item, const std::string& key) {
  const auto value = at_defaults(expression(e, Dependence::Parameters, item));
  if (!value) fail(e.origin().where, item, "expected a real number", key);
  return *value;
}

ex ModelBuilder::mass(const Expr& e, const std::string& owner, const std::string& item) const {
  const ex m = expression(e, Dependence::Parameters, item);
  const auto value = at_defaults(m);
  if (!value) fail(e.origin().where, item, "mass is not a real number", owner);
  if (*value <= 0.0) fail(e.origin().where, item, "mass must be positive", owner);
  return m;
}

ex ModelBuilder::positive(const Expr& e, const std::string& key, const std::string& item) const {
  const ex value = expression(e, Dependence::Parameters, item);
  const auto number = at_defaults(value);
  if (!number || *number <= 0.0) fail(e.origin().where, item, "expected a positive number", key);
  return value;
}

ex ModelBuilder::non_negative(const Expr& e, const std::string& key,
                              const std::string& item) const {
  const ex value = expression(e, Dependence::Parameters, item);
  const auto number = at_defaults(value);
  if (!number || *number < 0.0) fail(e.origin().where, item, "expected a number >= 0", key);
  return value;
}

GiNaC::symbol ModelBuilder::time() const { return scope_.time(); }

GiNaC::ex ModelBuilder::derivative(const std::string& name, int order) {
  const auto* entry = scope_.find(name);
  if (!entry || entry->category == ExpressionScope::Category::Parameter)
    throw ModelError(SourceLocation{"derivative"},
                     "not a coordinate, prescribed function or input of the model", name);
  if (order < 0) throw ModelError(SourceLocation{"derivative"}, "order must be >= 0", name);
  return scope_.derivative(name, order);
}

GiNaC::ex ModelBuilder::parse(const std::string& text) const {
  return expression(Expr(text), Dependence::Anything, "expression");
}

// ---------------------------------------------------------------------------------------------
// Parameters, coordinates, prescribed functions, inputs

GiNaC::symbol ModelBuilder::parameter(const Name& name, const Expr& value) {
  const std::string item = "parameters." + name.text;
  define(name, item);
  // Added after its value is read: a value may only use earlier parameters.
  const ex v = expression(value, Dependence::Parameters, item);
  const auto number = at_defaults(v);
  if (!number) {
    std::string why = "parameter value is not a real number";
    try {
      if (auto defect = sym::finite_double_defect(v, defaults_))
        why = "parameter value is not a real number: " + *defect;
    } catch (const std::exception&) {
      // GiNaC's pole and division errors: the plain reason
    }
    fail(value.origin().where, item, why, name.text);
  }
  const GiNaC::symbol symbol(name.text, sym::latex_identifier(name.text));
  model_->parameters.push_back(Parameter{name.text, symbol, v, place(name.where, item)});
  scope_.add_parameter(name.text, symbol);
  defaults_[symbol] = *number;
  return symbol;
}

GiNaC::symbol ModelBuilder::coordinate(const Name& name, const Expr& initial,
                                       const Expr& velocity) {
  const std::string item = "coordinates." + name.text;
  define(name, item);
  Coordinate c;
  c.name = name.text;
  c.where = place(name.where, item);
  c.initial = number(initial, item + ".initial", "initial");
  c.velocity = number(velocity, item + ".velocity", "velocity");
  scope_.add_coordinate(name.text);
  model_->coordinates.push_back(c);
  return model_->time_functions->derivative(name.text, 0);
}

void ModelBuilder::coordinates_at(const SourceLocation& where) { coordinates_where_ = where; }

ModelBuilder& ModelBuilder::limits(const Name& coordinate, const LimitsSpec& spec,
                                   const SourceLocation& where) {
  check_usable();
  const std::string item = "coordinates." + coordinate.text + ".limits";
  auto c = std::find_if(model_->coordinates.begin(), model_->coordinates.end(),
                        [&](const Coordinate& k) { return k.name == coordinate.text; });
  if (c == model_->coordinates.end())
    fail(coordinate.where, item, "unknown coordinate", coordinate.text);
  CoordinateLimits limits;
  auto take = [&](const std::optional<Expr>& e, const std::string& key) -> std::optional<double> {
    if (!e) return std::nullopt;
    return number(*e, item + "." + key, key);
  };
  limits.lower = take(spec.lower, "lower");
  limits.upper = take(spec.upper, "upper");
  limits.velocity = take(spec.velocity, "velocity");
  limits.effort = take(spec.effort, "effort");
  if (limits.lower && limits.upper && *limits.lower > *limits.upper)
    fail(where, item, "the lower limit exceeds the upper limit", coordinate.text);
  if (limits.velocity && *limits.velocity < 0)
    fail(spec.velocity->origin().where, item + ".velocity", "expected a number >= 0", "velocity");
  if (limits.effort && *limits.effort < 0)
    fail(spec.effort->origin().where, item + ".effort", "expected a number >= 0", "effort");
  c->limits = limits;
  return *this;
}

GiNaC::ex ModelBuilder::prescribed(const Name& name, const std::optional<Expr>& expression_of_t) {
  const std::string item = "prescribed." + name.text;
  define(name, item);
  std::optional<ex> e;
  if (expression_of_t) e = expression(*expression_of_t, Dependence::TimeAndParameters, item);
  scope_.add_prescribed(name.text, e);
  model_->prescribed.push_back(Prescribed{name.text, e, place(name.where, item)});
  return scope_.find(name.text)->value;
}

GiNaC::symbol ModelBuilder::input(const Name& name) {
  const std::string item = "inputs." + name.text;
  define(name, item);
  scope_.add_input(name.text);
  model_->inputs.push_back(Input{name.text, place(name.where, item)});
  return model_->time_functions->derivative(name.text, 0);
}

// ---------------------------------------------------------------------------------------------
// Frames

ModelBuilder& ModelBuilder::frame(const Name& name, const FrameSpec& spec) {
  const std::string item = "frames." + name.text;
  define(name, item);
  Frame f;
  f.name = name.text;
  f.where = place(name.where, item);
  f.parent = spec.parent.text;
  f.translation = vector3(spec.translation, Dependence::Positions, item + ".translation");
  std::vector<ex> quaternion;
  f.rotation =
      rotation(spec.rotation, name.text, item + ".rotation", Dependence::Positions, &quaternion);
  frame_speeds(f, spec, item, quaternion);
  written_frames_.push_back(std::move(f));
  written_parent_where_.push_back(place(spec.parent.where, item + ".parent"));
  frames_ordered_ = false;
  return *this;
}

// A frame turned by rot_quat names its three speeds, the quaternion's angular velocity in the
// frame's axes; no other frame has speeds, and no coordinate is in two quaternions.
void ModelBuilder::frame_speeds(const Frame& f, const FrameSpec& spec, const std::string& item,
                                const std::vector<ex>& quaternion) {
  if (quaternion.empty()) {
    if (!spec.speeds.empty())
      fail(spec.speeds.front().where, item + ".speeds",
           "speeds on a frame are the angular velocity of a rotation by rot_quat(e0, e1, e2, e3), "
           "and this frame has none",
           spec.speeds.front().text);
    return;
  }
  if (spec.speeds.size() != 3)
    fail(spec.speeds.empty() ? spec.rotation.origin().where : spec.speeds.front().where,
         item + ".speeds",
         "a frame turned by rot_quat needs three speeds, its angular velocity in its own axes "
         "(speeds: [w1, w2, w3]); got " +
             std::to_string(spec.speeds.size()),
         f.name);
  for (const auto& other : frame_speeds_)
    for (const auto& e : quaternion)
      for (const auto& used : other.quaternion)
        if (used.is_equal(e))
          fail(spec.rotation.origin().where, item + ".rotation",
               "the coordinate is already in the quaternion of frame " + other.frame,
               GiNaC::ex_to<GiNaC::symbol>(e).get_name());
  for (const auto& w : spec.speeds) {
    define(w, item + ".speeds");
    scope_.add_speed(w.text);  // a load may use it (a damping torque -c*w1)
  }
  frame_speeds_.push_back({f.name, spec.speeds, quaternion, place(spec.speeds.front().where, item),
                           place(spec.rotation.origin().where, item + ".rotation")});
}

std::vector<RotationFactor> ModelBuilder::rotation(const Rotation& r, const std::string& frame,
                                                   const std::string& item, Dependence allowed,
                                                   std::vector<ex>* quaternion) {
  std::vector<RotationFactor> factors;
  for (const auto& part : r.parts()) {
    // rot_quat's speeds turn the frame last: no factor may follow it.
    if (quaternion && !quaternion->empty())
      fail(r.origin().where, item, "rot_quat must be the last factor of a rotation", frame);
    if (part.kind == Rotation::Part::Kind::Text) {
      TextLocator locate = r.origin().locate;
      if (!locate)
        locate = r.origin().known()
                     ? locate_on_one_line(r.origin().where)
                     : TextLocator([item](std::size_t offset) {
                         return SourceLocation{item + ", character " + std::to_string(offset + 1)};
                       });
      const auto parsed = quaternion
                              ? parse_rotation(part.text, scope_, locate, *quaternion, allowed)
                              : parse_rotation(part.text, scope_, locate, allowed);
      for (const auto& factor : parsed) {
        check_numbers(factor.angle, place(r.origin().where, item));
        for (unsigned k = 0; k < factor.matrix.nops(); ++k)
          check_numbers(factor.matrix.op(k), place(r.origin().where, item));
      }
      factors.insert(factors.end(), parsed.begin(), parsed.end());
      continue;
    }
    if (part.kind == Rotation::Part::Kind::Axis) {
      Vector3 axis;
      for (std::size_t k = 0; k < 3; ++k)
        axis[k] = expression(part.values[k], Dependence::Parameters, item + ".axis");
      const ex angle = expression(part.values[3], allowed, item + ".angle");
      const auto unit = normalized_axis(axis);
      if (!unit) fail(r.origin().where, item, "rotation axis must not be zero", frame);
      RotationFactor factor;
      factor.kind = RotationFactor::Kind::Axis;
      factor.axis = *unit;
      factor.angle = angle;
      factors.push_back(factor);
      continue;
    }
    GiNaC::matrix m(3, 3);
    for (unsigned k = 0; k < 9; ++k) m(k / 3, k % 3) = expression(part.values[k], allowed, item);
    if (auto numbers = numeric_matrix(m); numbers && !is_rotation(*numbers))
      fail(r.origin().where, item,
           "rotation is not a rotation matrix (orthonormal with determinant +1)", frame);
    // A matrix of coordinates, t or parameters: a rotation at every state, so at a few sample
    // states (parameters at their defaults, every other symbol at fixed pseudo-random values).
    for (int sample = 0; sample < 3; ++sample) {
      GiNaC::exmap at = defaults_;
      double value = 0.37 + 0.61 * sample;
      for (unsigned k = 0; k < 9; ++k)
        for (auto it = m(k / 3, k % 3).preorder_begin(); it != m(k / 3, k % 3).preorder_end(); ++it)
          if (GiNaC::is_a<GiNaC::symbol>(*it) && !at.count(*it)) {
            at[*it] = value;
            value = std::fmod(value * 1.7 + 0.29, 2.0) - 0.5;
          }
      GiNaC::matrix sampled(3, 3);
      for (unsigned k = 0; k < 9; ++k) sampled(k / 3, k % 3) = sym::substitute(m(k / 3, k % 3), at);
      if (auto numbers = numeric_matrix(sampled); numbers && !is_rotation(*numbers))
        fail(r.origin().where, item,
             "rotation is not a rotation matrix (orthonormal with determinant +1) at a sample "
             "state",
             frame);
    }
    RotationFactor factor;
    factor.kind = RotationFactor::Kind::Matrix;
    factor.matrix = m;
    factors.push_back(factor);
  }
  return factors;
}

// Parents before children whatever the order the frames were added in: walk up from each frame
// to the first frame already placed (or world), then place the walked chain from the top down.
const std::vector<Frame>& ModelBuilder::ordered_frames() {
  if (frames_ordered_) return model_->frames;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < written_frames_.size(); ++i) index[written_frames_[i].name] = i;
  for (std::size_t i = 0; i < written_frames_.size(); ++i) {
    const Frame& f = written_frames_[i];
    if (f.parent != "world" && !index.count(f.parent))
      fail(written_parent_where_[i], "frames." + f.name + ".parent", "unknown parent frame",
           f.parent);
  }
  enum class State { Unplaced, OnChain, Placed };
  std::vector<State> state(written_frames_.size(), State::Unplaced);
  std::vector<Frame> ordered;
  for (std::size_t first = 0; first < written_frames_.size(); ++first) {
    std::vector<std::size_t> chain;
    std::optional<std::size_t> current = first;
    while (current && state[*current] == State::Unplaced) {
      state[*current] = State::OnChain;
      chain.push_back(*current);
      const std::string& parent = written_frames_[*current].parent;
      current = parent == "world" ? std::nullopt : std::optional(index.at(parent));
    }
    if (current && state[*current] == State::OnChain) {
      const Frame& f = written_frames_[*current];
      throw ModelError(f.where, "cycle in the frame tree: the frame is its own ancestor", f.name);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      state[*it] = State::Placed;
      ordered.push_back(written_frames_[*it]);
    }
  }
  model_->frames = std::move(ordered);
  frames_ordered_ = true;
  return model_->frames;
}

std::string ModelBuilder::frame_name(const Name& name, const std::string& item) {
  ordered_frames();
  if (!model_->frame_index(name.text)) fail(name.where, item, "unknown frame", name.text);
  return name.text;
}

// The carrier's motion must be given (t and prescribed functions), not a degree of freedom:
// neither it nor any frame above it may move with a coordinate.
ModelBuilder& ModelBuilder::relative_to(const Name& frame) {
  check_usable();
  const std::string item = "relative_to";
  ordered_frames();
  auto index = model_->frame_index(frame.text);
  if (!index || *index < 0)
    fail(frame.where, item, "relative_to needs a frame other than world", frame.text);
  for (int i = *index; i >= 0;
       i = *model_->frame_index(model_->frames[static_cast<std::size_t>(i)].parent)) {
    const Frame& f = model_->frames[static_cast<std::size_t>(i)];
    GiNaC::exvector parts(f.translation.begin(), f.translation.end());
    for (const auto& r : f.rotation) {
      parts.push_back(r.angle);
      for (unsigned k = 0; k < r.matrix.nops(); ++k) parts.push_back(r.matrix.op(k));
    }
    for (std::size_t j = 0; j < model_->dof(); ++j)
      for (int order = 0; order <= 2; ++order)
        for (const auto& e : parts)
          if (e.has(model_->coordinate_symbol(j, order)))
            fail(frame.where, item,
                 "the carrier frame moves with the coordinate " + model_->coordinates[j].name +
                     " (through frame " + f.name +
                     "); its motion must depend on t and prescribed functions only",
                 frame.text);
  }
  model_->relative_to = frame.text;
  model_->relative_to_where = place(frame.where, item);
  return *this;
}

// ---------------------------------------------------------------------------------------------
// Bodies and particles

ModelBuilder& ModelBuilder::body(const Name& name, const BodySpec& spec) {
  const std::string item = "bodies." + name.text;
  define(name, item);
  Body b;
  b.name = name.text;
  b.where = place(name.where, item);
  b.frame = frame_name(spec.frame, item + ".frame");
  b.mass = mass(spec.mass, name.text, item + ".mass");
  b.com = vector3(spec.com, Dependence::Positions, item + ".com");
  b.inertia = inertia(spec.inertia, b.mass, item + ".inertia");
  // The shape it was given as (its axis checked above): drawn as that, not as a solid read back
  // from the moments, which cannot tell a square box from a cylinder, nor a cube from a sphere.
  static const std::map<Inertia::Kind, BodyShape::Kind> shapes = {
      {Inertia::Kind::Rod, BodyShape::Kind::Rod},
      {Inertia::Kind::Disk, BodyShape::Kind::Disk},
      {Inertia::Kind::Cylinder, BodyShape::Kind::Cylinder},
      {Inertia::Kind::Box, BodyShape::Kind::Box},
      {Inertia::Kind::Sphere, BodyShape::Kind::Sphere}};
  if (const auto shape = shapes.find(spec.inertia.kind()); shape != shapes.end()) {
    BodyShape declared;
    declared.kind = shape->second;
    for (const auto& value : spec.inertia.values())
      declared.sizes.push_back(expression(value, Dependence::Parameters, item + ".inertia"));
    if (const auto& axis = spec.inertia.axis())
      declared.axis = axis->text == "x" ? 0 : axis->text == "y" ? 1 : 2;
    b.shape = std::move(declared);
  }
  body_index_[name.text] = model_->bodies.size();
  model_->bodies.push_back(std::move(b));
  check_inertia(model_->bodies.back().inertia, spec.inertia.origin().where, name.text,
                item + ".inertia");
  return *this;
}

// Inertia about the centre of mass in the body frame's axes, from any of its forms.
GiNaC::matrix ModelBuilder::inertia(const Inertia& in, const ex& mass,
                                    const std::string& item) const {
  std::vector<ex> v;
  for (const auto& value : in.values())
    v.push_back(expression(value, Dependence::Parameters, item));
  // A shape's sizes are lengths: they enter squared, so a negative one would give the inertia of
  // its opposite without a word. A box may be flat (a plate: one edge 0); the other shapes have
  // their own flat forms (a disk, a rod) and need every size positive.
  static const std::map<Inertia::Kind, std::vector<const char*>> sizes = {
      {Inertia::Kind::Rod, {"rod.length"}},
      {Inertia::Kind::Disk, {"disk.radius"}},
      {Inertia::Kind::Cylinder, {"cylinder.radius", "cylinder.length"}},
      {Inertia::Kind::Box, {"box.size[0]", "box.size[1]", "box.size[2]"}},
      {Inertia::Kind::Sphere, {"sphere.radius"}}};
  if (const auto shape = sizes.find(in.kind()); shape != sizes.end())
    for (std::size_t k = 0; k < v.size(); ++k) {
      const std::string key = shape->second[k];
      const auto size = at_defaults(v[k]);
      const bool flat_allowed = in.kind() == Inertia::Kind::Box;
      if (!size || *size < 0.0 || (*size == 0.0 && !flat_allowed))
        fail(in.values()[k].origin().known() ? in.values()[k].origin().where : in.origin().where,
             item + "." + key,
             std::string(flat_allowed ? "a box's edges must be >= 0" : "a size must be positive") +
                 (size ? "; got " + format_number(*size) : ": not a real number"),
             key);
    }
  auto axisymmetric = [&](const ex& axial, const ex& transverse) {
    const Name& axis = *in.axis();
    if (axis.text != "x" && axis.text != "y" && axis.text != "z")
      fail(axis.where, item + ".axis", "axis must be x, y or z", axis.text);
    return diagonal(axis.text == "x" ? axial : transverse, axis.text == "y" ? axial : transverse,
                    axis.text == "z" ? axial : transverse);
  };
  switch (in.kind()) {
    case Inertia::Kind::None:
      return GiNaC::matrix(3, 3);
    case Inertia::Kind::Matrix: {
      GiNaC::matrix m(3, 3);
      for (unsigned k = 0; k < 9; ++k) m(k / 3, k % 3) = v[k];
      for (unsigned i = 0; i < 3; ++i)
        for (unsigned j = i + 1; j < 3; ++j)
          if (!(m(i, j) - m(j, i)).expand().is_zero())
            fail(in.origin().where, item, "inertia matrix must be symmetric", "inertia");
      return m;
    }
    case Inertia::Kind::Entries: {
      GiNaC::matrix m = diagonal(v[0], v[1], v[2]);
      m(0, 1) = m(1, 0) = v[3];
      m(1, 2) = m(2, 1) = v[4];
      m(0, 2) = m(2, 0) = v[5];
      return m;
    }
    case Inertia::Kind::Rod:
      return axisymmetric(0, mass * GiNaC::pow(v[0], 2) / 12);
    case Inertia::Kind::Disk:
      return axisymmetric(mass * GiNaC::pow(v[0], 2) / 2, mass * GiNaC::pow(v[0], 2) / 4);
    case Inertia::Kind::Cylinder:
      return axisymmetric(mass * GiNaC::pow(v[0], 2) / 2,
                          mass * (3 * GiNaC::pow(v[0], 2) + GiNaC::pow(v[1], 2)) / 12);
    case Inertia::Kind::Box: {
      const ex a2 = GiNaC::pow(v[0], 2), b2 = GiNaC::pow(v[1], 2), c2 = GiNaC::pow(v[2], 2);
      return diagonal(mass * (b2 + c2) / 12, mass * (a2 + c2) / 12, mass * (a2 + b2) / 12);
    }
    case Inertia::Kind::Sphere: {
      const ex moment = GiNaC::numeric(2, 5) * mass * GiNaC::pow(v[0], 2);
      return diagonal(moment, moment, moment);
    }
  }
  return GiNaC::matrix(3, 3);
}

// A rigid body's inertia about its centre of mass has principal moments that are not negative
// and satisfy the triangle inequality (I1 <= I2 + I3, ...: a body's mass lies at real distances
// from the axes). Checked at the parameters' defaults, where the numbers are known. One that
// breaks only the triangle inequality may be a planar body's ([0, 0, Izz]): decided
// by the body's motion (detail::planar_defect): its frame, and every frame above it, is known.
void ModelBuilder::check_inertia(const GiNaC::matrix& inertia, const SourceLocation& where,
                                 const std::string& body, const std::string& item) const {
  // Numbers and parameters only (Dependence::Parameters), so every entry has a value at the
  // defaults; one that is not a finite real (sqrt(-1), 1e200^2) is no inertia at all.
  Eigen::Matrix3d tensor;
  for (unsigned k = 0; k < 9; ++k) {
    const auto entry = at_defaults(inertia(k / 3, k % 3));
    if (!entry) fail(where, item, "inertia is not a real number", body);
    tensor(static_cast<int>(k / 3), static_cast<int>(k % 3)) = *entry;
  }
  const std::string& frame = model_->bodies.at(body_index_.at(body)).frame;
  if (const auto defect = detail::inertia_fault(tensor) == detail::InertiaFault::Triangle
                              ? detail::planar_defect(*model_, frame, tensor)
                              : detail::inertia_defect(tensor))
    fail(where, item, *defect, body);
}

ModelBuilder& ModelBuilder::particle(const Name& name, const ParticleSpec& spec) {
  const std::string item = "particles." + name.text;
  define(name, item);
  Particle p;
  p.name = name.text;
  p.where = place(name.where, item);
  p.frame = frame_name(spec.frame, item + ".frame");
  p.mass = mass(spec.mass, name.text, item + ".mass");
  p.position = vector3(spec.position, Dependence::Positions, item + ".position");
  model_->particles.push_back(std::move(p));
  return *this;
}

ModelBuilder& ModelBuilder::visual(const VisualSpec& spec, const SourceLocation& where) {
  check_usable();
  const std::string item = "visuals[" + std::to_string(model_->visuals.size()) + "]";
  Visual v;
  v.where = place(where, item);
  v.frame = frame_name(spec.frame, item + ".frame");
  v.translation = vector3(spec.translation, Dependence::Parameters, item + ".translation");
  v.rotation = rotation(spec.rotation, v.frame, item + ".rotation", Dependence::Parameters);
  for (const auto& factor : v.rotation)
    if (factor.kind == RotationFactor::Kind::Axis && !at_defaults(factor.angle))
      fail(spec.rotation.origin().where, item + ".rotation",
           not_allowed_message(Dependence::Parameters), "rotation");
  v.shape = spec.shape;
  const int sizes = spec.shape == Visual::Shape::Sphere     ? 1
                    : spec.shape == Visual::Shape::Cylinder ? 2
                                                            : 3;
  for (int k = 0; k < sizes; ++k) {
    const std::string key = "size[" + std::to_string(k) + "]";
    v.size[static_cast<std::size_t>(k)] =
        number(spec.size[static_cast<std::size_t>(k)], item + "." + key, key);
    if (v.size[static_cast<std::size_t>(k)] <= 0.0 && spec.shape != Visual::Shape::Mesh)
      fail(spec.size[static_cast<std::size_t>(k)].origin().where, item + "." + key,
           "expected a positive number", key);
  }
  v.mesh = spec.mesh;
  if (spec.shape == Visual::Shape::Mesh && v.mesh.empty())
    fail(where, item + ".mesh", "a mesh needs a file name", "mesh");
  model_->visuals.push_back(std::move(v));
  return *this;
}

ModelBuilder& ModelBuilder::gravity(const Expr3& g) {
  check_usable();
  model_->gravity = vector3(g, Dependence::TimeAndParameters, "gravity");
  return *this;
}

// ---------------------------------------------------------------------------------------------
// Loads

/// The place of the load about to be added, "loads[k]", for messages.
std::string ModelBuilder::next_load_item() const {
  return "loads[" + std::to_string(model_->loads.size()) + "]";
}

/// The frame a load acts on (a body acts through its frame) and its default point.
PointRef ModelBuilder::attachment(const Name& name, const std::string& item) {
  ordered_frames();
  if (model_->frame_index(name.text)) return PointRef{name.text, {0, 0, 0}};
  if (auto body = body_index_.find(name.text); body != body_index_.end()) {
    const Body& b = model_->bodies[body->second];
    return PointRef{b.frame, b.com};
  }
  // A particle is a point with a mass, not something a load can name: say where it sits, which
  // is what the user meant.
  for (const Particle& p : model_->particles)
    if (p.name == name.text)
      fail(name.where, item,
           "a load acts on a frame or a body, not on a particle: particle " + p.name +
               " sits in frame " + p.frame + " (write on: " + p.frame +
               " and at: the particle's position)",
           name.text);
  std::vector<std::string> names{"world"};  // what a load may act on
  for (const Frame& f : model_->frames) names.push_back(f.name);
  for (const Body& b : model_->bodies) names.push_back(b.name);
  fail(name.where, item, "unknown frame or body" + did_you_mean(name.text, names), name.text);
}

PointRef ModelBuilder::point(const PointSpec& p, const std::string& item) {
  PointRef ref = attachment(p.on, item);
  ref.point = vector3(p.point, Dependence::Positions, item);
  return ref;
}

ModelBuilder& ModelBuilder::force(const ForceSpec& spec, const SourceLocation& where) {
  check_usable();
  const std::string item = next_load_item();
  ForceLoad f;
  f.force = vector3(spec.force, Dependence::Loads, item + ".force");
  f.at = attachment(spec.on, item + ".on");
  if (spec.at) f.at.point = vector3(*spec.at, Dependence::Positions, item + ".at");
  if (spec.in) f.in = frame_name(*spec.in, item + ".in");
  model_->loads.push_back(Load{f, place(where, item), {}});
  return *this;
}

ModelBuilder& ModelBuilder::torque(const TorqueSpec& spec, const SourceLocation& where) {
  check_usable();
  const std::string item = next_load_item();
  TorqueLoad t;
  t.torque = vector3(spec.torque, Dependence::Loads, item + ".torque");
  t.on = attachment(spec.on, item + ".on").frame;
  if (spec.in) t.in = frame_name(*spec.in, item + ".in");
  model_->loads.push_back(Load{t, place(where, item), {}});
  return *this;
}

ModelBuilder& ModelBuilder::spring(const SpringSpec& spec, const SourceLocation& where) {
  check_usable();
  const std::string item = next_load_item();
  SpringLoad s;
  s.from = point(spec.from, item + ".from");
  s.to = point(spec.to, item + ".to");
  s.stiffness = expression(spec.stiffness, Dependence::Potentials, item + ".stiffness");
  s.rest_length = expression(spec.rest_length, Dependence::Potentials, item + ".rest_length");
  // A length: never negative (the potential ½ k (d − L0)² would then pull the points through
  // each other to d = |L0|). Checked where it is a number, at the parameters' defaults.
  if (const auto length = at_defaults(s.rest_length); length && *length < 0.0)
    fail(spec.rest_length.origin().where, item + ".rest_length",
         "a spring's rest length must be >= 0; got " + format_number(*length), "rest_length");
  model_->loads.push_back(Load{s, place(where, item), {}});
  return *this;
}

ModelBuilder& ModelBuilder::damper(const DamperSpec& spec, const SourceLocation& where) {
  check_usable();
  const std::string item = next_load_item();
  DamperLoad d;
  d.from = point(spec.from, item + ".from");
  d.to = point(spec.to, item + ".to");
  d.coefficient = expression(spec.coefficient, Dependence::Damping, item + ".coefficient");
  model_->loads.push_back(Load{d, place(where, item), {}});
  return *this;
}

ModelBuilder& ModelBuilder::generalized_force(const Name& coordinate, const Expr& value,
                                              const SourceLocation& where) {
  check_usable();
  const std::string item = next_load_item();
  const auto& all = model_->coordinates;
  const auto found = std::find_if(all.begin(), all.end(),
                                  [&](const Coordinate& c) { return c.name == coordinate.text; });
  if (found == all.end())
    fail(coordinate.where, item + ".coordinate", "unknown coordinate", coordinate.text);
  GeneralizedLoad g;
  g.coordinate = static_cast<std::size_t>(found - all.begin());
  g.value = expression(value, Dependence::Loads, item + ".value");
  model_->loads.push_back(Load{g, place(where, item), {}});
  return *this;
}

ModelBuilder& ModelBuilder::potential(const Expr& potential, const SourceLocation& where) {
  check_usable();
  const std::string item = next_load_item();
  PotentialLoad p{expression(potential, Dependence::Potentials, item + ".potential")};
  model_->loads.push_back(Load{p, place(where, item), {}});
  return *this;
}

ModelBuilder& ModelBuilder::name_load(const Name& name) {
  check_usable();
  if (model_->loads.empty()) fail(name.where, "loads", "no load to name yet", name.text);
  Load& load = model_->loads.back();
  const std::string item = "loads[" + std::to_string(model_->loads.size() - 1) + "].name";
  if (!load.name.empty())
    fail(name.where, item, "the load is already named " + load.name, name.text);
  if (!is_valid_name(name.text)) fail(name.where, item, "not a valid name", name.text);
  if (name.text == "gravity")
    fail(name.where, item, "`gravity` is reserved for the weight (claims' `load: gravity`)",
         name.text);
  if (!load_names_.insert(name.text).second)
    fail(name.where, item, "duplicate load name", name.text);
  load.name = name.text;
  return *this;
}

// ---------------------------------------------------------------------------------------------
// Constraints and independent speeds

ModelBuilder& ModelBuilder::holonomic_constraint(const Name& name, const Expr& expression,
                                                 const SourceLocation& where) {
  constraint(name, Constraint::Kind::Holonomic, expression, where);
  return *this;
}

ModelBuilder& ModelBuilder::nonholonomic_constraint(const Name& name, const Expr& expression,
                                                    const SourceLocation& where) {
  constraint(name, Constraint::Kind::Nonholonomic, expression, where);
  return *this;
}

// A holonomic constraint may not use velocities; a nonholonomic one must be linear in them
// (a(q, t)·q̇ + a0): otherwise the multiplier form M q̈ = f + Aᵀλ does not apply.
void ModelBuilder::constraint(const Name& name, Constraint::Kind kind, const Expr& expr,
                              const SourceLocation& where) {
  check_usable();
  const std::string item = "constraints." + name.text;
  if (!is_valid_name(name.text)) fail(name.where, item, "not a valid name", name.text);
  if (!constraint_names_.insert(name.text).second)
    fail(name.where, item, "duplicate constraint name", name.text);
  Constraint c;
  c.name = name.text;
  c.where = place(where, item);
  c.kind = kind;
  c.expression = expression(expr, Dependence::Anything, item);
  const SourceLocation value_where = expr.origin().where;
  std::vector<GiNaC::symbol> velocities;
  for (std::size_t j = 0; j < model_->dof(); ++j) {
    if (c.expression.has(model_->coordinate_symbol(j, 2)))
      fail(value_where, item, "a constraint may not use accelerations", c.name);
    velocities.push_back(model_->coordinate_symbol(j, 1));
  }
  for (const auto& v : velocities) {
    if (kind == Constraint::Kind::Holonomic && c.expression.has(v))
      fail(value_where, item,
           "a holonomic constraint depends on the coordinates and t only; write one with "
           "velocities as nonholonomic",
           c.name);
    const ex coefficient = c.expression.diff(v);
    for (const auto& w : velocities)
      if (!coefficient.diff(w).is_zero())
        fail(value_where, item, "a nonholonomic constraint must be linear in the velocities",
             c.name);
  }
  model_->constraints.push_back(std::move(c));
}

ModelBuilder& ModelBuilder::independent(const std::vector<Name>& coordinates,
                                        const SourceLocation& where) {
  check_usable();
  const std::string item = "independent";
  const std::size_t n = model_->dof(), m = model_->constraints.size();
  model_->independent_where = place(where, item);
  model_->independent.clear();
  for (const auto& name : coordinates) {
    std::size_t j = 0;
    while (j < n && model_->coordinates[j].name != name.text) ++j;
    if (j == n) fail(name.where, item, "not a coordinate of the model", name.text);
    if (std::find(model_->independent.begin(), model_->independent.end(), j) !=
        model_->independent.end())
      fail(name.where, item, "listed twice", name.text);
    model_->independent.push_back(j);
  }
  // One independent speed per degree of freedom left by the constraints.
  if (model_->independent.size() != n - std::min(n, m))
    fail(where, item,
         "needs " + std::to_string(n - std::min(n, m)) + " independent speeds (" +
             std::to_string(n) + " coordinates - " + std::to_string(m) + " constraints), got " +
             std::to_string(model_->independent.size()),
         "independent");
  check_dependent_block();
  return *this;
}

// ---------------------------------------------------------------------------------------------
// Generalized speeds

ModelBuilder& ModelBuilder::speed(const Name& name, const Expr& value,
                                  const SourceLocation& where) {
  const std::string item = "speeds." + name.text;
  define(name, item);
  Speed u;
  u.name = name.text;
  u.kind = Speed::Kind::Declared;
  u.where = place(where.line > 0 || !where.file.empty() ? where : name.where, item);
  u.value = expression(value, Dependence::Anything, item + ".value");
  const SourceLocation value_where = value.origin().known() ? value.origin().where : u.where;
  // u = Y(q, t)·q̇: linear in the velocities, with no term free of them.
  const std::size_t n = model_->dof();
  GiNaC::exmap at_rest;
  bool mentions = false;
  for (std::size_t j = 0; j < n; ++j) {
    if (u.value.has(model_->coordinate_symbol(j, 2)))
      fail(value_where, item, "a speed may not use accelerations", u.name);
    const GiNaC::symbol v = model_->coordinate_symbol(j, 1);
    at_rest[v] = 0;
    const ex coefficient = u.value.diff(v);
    if (!coefficient.is_zero()) mentions = true;
    for (std::size_t k = 0; k < n; ++k)
      if (!coefficient.diff(model_->coordinate_symbol(k, 1)).is_zero())
        fail(value_where, item,
             "a speed must be linear in the velocities dot(q) (u = Y(q, t) dot(q)), and this one "
             "is not",
             u.name);
  }
  if (!mentions)
    fail(value_where, item, "a speed is a combination of the velocities dot(q); this one has none",
         u.name);
  if (!sym::substitute(u.value, at_rest).expand().is_zero())
    fail(value_where, item,
         "a speed must be linear in the velocities dot(q) (u = Y(q, t) dot(q)): this one has a "
         "term without any",
         u.name);
  scope_.add_speed(u.name);  // a load may use it (replaced by its value once speeds assemble)
  declared_speeds_.push_back(std::move(u));
  return *this;
}

void ModelBuilder::speeds_at(const SourceLocation& where) { speeds_where_ = where; }

// The speed list in its order (declared, quaternion frames', own rates of the others) and the
// kinematic equations q̇ = W u, once every coordinate and frame is known.
void ModelBuilder::assemble_speeds() {
  if (declared_speeds_.empty() && frame_speeds_.empty()) return;
  const SourceLocation where = speeds_where_               ? place(*speeds_where_, "speeds")
                               : !declared_speeds_.empty() ? declared_speeds_.front().where
                                                           : frame_speeds_.front().where;
  model_->speeds_where = where;
  if (!model_->flexible.empty())
    fail(where, "speeds", "generalized speeds are not supported with flexible bodies yet",
         "speeds");
  if (model_->relative_to)
    fail(where, "speeds", "generalized speeds are not supported with relative_to yet", "speeds");
  if (!model_->independent.empty())
    fail(where, "speeds", "a model has either generalized speeds or independent: [..], not both",
         "speeds");

  const std::size_t n = model_->dof();
  auto index_of = [&](const ex& coordinate) {
    std::size_t j = 0;
    while (j < n && !coordinate.is_equal(model_->coordinate_symbol(j))) ++j;
    return j;
  };
  std::vector<bool> in_quaternion(n, false);
  for (const auto& f : frame_speeds_)
    for (const auto& e : f.quaternion) in_quaternion.at(index_of(e)) = true;

  // Declared speeds: Y (k × k) on the coordinates they mention.
  std::vector<std::size_t> mentioned;
  for (std::size_t j = 0; j < n; ++j) {
    const GiNaC::symbol v = model_->coordinate_symbol(j, 1);
    for (const auto& u : declared_speeds_) {
      if (u.value.diff(v).is_zero()) continue;
      if (in_quaternion[j])
        fail(u.where, "speeds." + u.name,
             "the rates of a quaternion's coordinates follow from its frame's speeds; a declared "
             "speed may not use them",
             model_->coordinates[j].name);
      if (mentioned.empty() || mentioned.back() != j) mentioned.push_back(j);
    }
  }
  const std::size_t k = declared_speeds_.size();
  if (mentioned.size() != k) {
    std::string names;
    for (std::size_t c = 0; c < mentioned.size(); ++c)
      names += (c ? ", " : "") + model_->coordinates[mentioned[c]].name;
    fail(where, "speeds",
         std::to_string(k) + " declared speed" + (k == 1 ? "" : "s") + " mention " +
             std::to_string(mentioned.size()) + " coordinate" + (mentioned.size() == 1 ? "" : "s") +
             " (" + names +
             "): the speeds must determine those coordinates' rates, as many speeds as "
             "coordinates they mention",
         "speeds");
  }
  const auto K = static_cast<unsigned>(k);
  GiNaC::matrix y(K, K), y_inverse(K, K);
  for (unsigned i = 0; i < K; ++i)
    for (unsigned c = 0; c < K; ++c)
      y(i, c) = declared_speeds_[i].value.diff(model_->coordinate_symbol(mentioned[c], 1));
  if (k > 0) {
    const std::string singular =
        "the declared speeds do not determine the coordinates' rates: Y in u = Y(q) dot(q) is "
        "singular";
    try {
      y_inverse = y.inverse();
    } catch (const std::runtime_error&) {
      fail(where, "speeds", singular + " everywhere", "speeds");
    }
    GiNaC::exmap at_start = defaults_;
    at_start[model_->time_functions->time()] = 0;
    for (std::size_t j = 0; j < n; ++j)
      at_start[model_->coordinate_symbol(j)] = GiNaC::numeric(model_->coordinates[j].initial);
    for (const auto& p : model_->prescribed)
      if (!p.expression) at_start[model_->time_functions->derivative(p.name, 0)] = 0;
    for (const auto& input : model_->inputs)
      at_start[model_->time_functions->derivative(input.name, 0)] = 0;
    GiNaC::matrix y0(K, K);
    double hadamard = 1.0;
    bool numeric = true;
    for (unsigned i = 0; i < K && numeric; ++i) {
      double row = 0.0;
      for (unsigned c = 0; c < K && numeric; ++c) {
        ex value;
        try {
          value = GiNaC::evalf(sym::substitute(y(i, c), at_start));
        } catch (const std::exception&) {
          value = ex();
        }
        numeric =
            GiNaC::is_a<GiNaC::numeric>(value) && GiNaC::ex_to<GiNaC::numeric>(value).is_real();
        if (!numeric) break;
        const double v = GiNaC::ex_to<GiNaC::numeric>(value).to_double();
        y0(i, c) = v;
        row += v * v;
      }
      hadamard *= std::sqrt(row);
    }
    if (numeric) {
      const double det = GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(y0.determinant())).to_double();
      if (!(std::abs(det) > 1e-12 * hadamard))
        fail(where, "speeds", singular + " at the initial state", "speeds");
    }
  }

  // The list, and W.
  std::vector<Speed> speeds = declared_speeds_;
  for (const auto& f : frame_speeds_) {
    const ex e0 = f.quaternion[0], e1 = f.quaternion[1], e2 = f.quaternion[2], e3 = f.quaternion[3];
    // ė = ½ E(e) w with E the rows of e ⊗ (0, w); Eᵀ E = |e|² 1, so w = 2 Eᵀ ė / |e|².
    const GiNaC::matrix e_matrix(4, 3,
                                 GiNaC::lst{-e1, -e2, -e3, e0, -e3, e2, e3, e0, -e1, -e2, e1, e0});
    const ex norm2 = e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3;
    for (std::size_t a = 0; a < 3; ++a) {
      Speed w;
      w.name = f.names[a].text;
      w.kind = Speed::Kind::Frame;
      w.frame = f.frame;
      w.axis = a;
      w.where = place(f.names[a].where, "frames." + f.frame + ".speeds");
      ex value = 0;
      for (unsigned i = 0; i < 4; ++i)
        value += e_matrix(i, static_cast<unsigned>(a)) *
                 model_->coordinate_symbol(index_of(f.quaternion[i]), 1);
      w.value = 2 * value / norm2;
      speeds.push_back(std::move(w));
    }
  }
  for (std::size_t j = 0; j < n; ++j) {
    if (in_quaternion[j] || std::find(mentioned.begin(), mentioned.end(), j) != mentioned.end())
      continue;
    Speed u;
    u.name = sym::TimeFunctions::text_name(model_->coordinates[j].name, 1);
    u.kind = Speed::Kind::Coordinate;
    u.coordinate = j;
    u.value = model_->coordinate_symbol(j, 1);
    u.where = model_->coordinates[j].where;
    speeds.push_back(std::move(u));
  }
  const auto N = static_cast<unsigned>(n), P = static_cast<unsigned>(speeds.size());
  GiNaC::matrix w(N, P);
  for (unsigned c = 0; c < K; ++c)
    for (unsigned i = 0; i < K; ++i) w(static_cast<unsigned>(mentioned[c]), i) = y_inverse(c, i);
  unsigned column = K;
  for (const auto& f : frame_speeds_) {
    const ex e0 = f.quaternion[0], e1 = f.quaternion[1], e2 = f.quaternion[2], e3 = f.quaternion[3];
    const GiNaC::matrix e_matrix(4, 3,
                                 GiNaC::lst{-e1, -e2, -e3, e0, -e3, e2, e3, e0, -e1, -e2, e1, e0});
    for (unsigned i = 0; i < 4; ++i)
      for (unsigned a = 0; a < 3; ++a)
        w(static_cast<unsigned>(index_of(f.quaternion[i])), column + a) = e_matrix(i, a) / 2;
    column += 3;
  }
  for (; column < P; ++column) w(static_cast<unsigned>(speeds[column].coordinate), column) = 1;
  model_->speeds = std::move(speeds);
  model_->speed_kinematics = w;
  // A load that names a declared speed gets its value, Y(q, t) dot(q): the load is then an
  // expression of q and q̇ for every consumer, as any damping load is. A quaternion frame's speeds
  // stay symbols: such a model is formed in its speeds only.
  if (!declared_speeds_.empty()) {
    GiNaC::exmap values;
    for (const auto& u : declared_speeds_)
      values[model_->time_functions->derivative(u.name, 0)] = u.value;
    auto put = [&](ex& e) { e = sym::substitute(e, values); };
    for (auto& load : model_->loads) {
      if (auto* f = std::get_if<ForceLoad>(&load.kind))
        for (auto& c : f->force) put(c);
      else if (auto* t = std::get_if<TorqueLoad>(&load.kind))
        for (auto& c : t->torque) put(c);
      else if (auto* g = std::get_if<GeneralizedLoad>(&load.kind))
        put(g->value);
    }
  }
  for (const auto& f : frame_speeds_) {
    Quaternion q;
    q.frame = f.frame;
    for (std::size_t i = 0; i < 4; ++i) q.coordinates[i] = index_of(f.quaternion[i]);
    q.where = f.rotation_where;
    model_->quaternions.push_back(q);
  }
}

ModelBuilder& ModelBuilder::positive(const std::vector<Name>& names, const SourceLocation& where) {
  check_usable();
  const std::string item = "positive";
  model_->positive.clear();
  (void)where;
  for (const auto& name : names) {
    std::optional<GiNaC::symbol> symbol;
    if (const Parameter* p = model_->find_parameter(name.text)) symbol = p->symbol;
    for (std::size_t j = 0; j < model_->dof() && !symbol; ++j)
      if (model_->coordinates[j].name == name.text) symbol = model_->coordinate_symbol(j);
    if (!symbol) fail(name.where, item, "not a parameter or coordinate of the model", name.text);
    if (std::find_if(model_->positive.begin(), model_->positive.end(),
                     [&](const auto& s) { return s.is_equal(*symbol); }) != model_->positive.end())
      fail(name.where, item, "listed twice", name.text);
    model_->positive.push_back(*symbol);
  }
  return *this;
}

// The constraints must determine the dependent speeds: A_d (the columns of the velocity-level
// constraint matrix A that belong to the dependent speeds) must be invertible. Checked at the
// initial state (parameters at their defaults, t = 0, inputs and unspecified functions 0), where
// a poor choice of independent speeds shows before any equation is formed.
void ModelBuilder::check_dependent_block() const {
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
    const Constraint& c = model_->constraints[i];
    double row = 0.0;
    for (std::size_t k = 0; k < m; ++k) {
      // Holonomic φ: φ̇ = Σ ∂φ/∂q_j q̇_j + ∂φ/∂t; nonholonomic: the velocity's coefficient.
      const std::size_t j = dependent[k];
      const ex coefficient = c.kind == Constraint::Kind::Holonomic
                                 ? c.expression.diff(model_->coordinate_symbol(j))
                                 : c.expression.diff(model_->coordinate_symbol(j, 1));
      ex value;
      try {
        value = GiNaC::evalf(sym::substitute(coefficient, at_start));
      } catch (const std::exception&) {
        value = ex();
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
    throw ModelError(
        model_->independent_where,
        "with these independent speeds the constraints do not determine the dependent ones (" +
            names +
            "): their block of the constraint Jacobian is singular at the initial state; list "
            "other independent speeds",
        "independent");
}

// ---------------------------------------------------------------------------------------------
// Flexible bodies

NodeSelection ModelBuilder::node_selection(const NodeSelectionSpec& s,
                                           const std::string& item) const {
  NodeSelection selection;
  selection.where = place(s.where, item);
  for (std::size_t k = 0; k < 3; ++k)
    if (s.plane[k]) selection.plane[k] = expression(*s.plane[k], Dependence::Parameters, item);
  for (std::size_t k = 0; k < s.nodes.size(); ++k) {
    if (s.nodes[k] < 0)
      fail(k < s.nodes_where.size() ? s.nodes_where[k] : s.where, item,
           "expected a node index (0, 1, 2, ...)", std::to_string(s.nodes[k]));
    selection.nodes.push_back(s.nodes[k]);
  }
  selection.group = s.group;
  const bool empty =
      std::none_of(s.plane.begin(), s.plane.end(), [](const auto& p) { return p.has_value(); }) &&
      s.nodes.empty() && s.group.empty();
  if (empty) fail(s.where, item, "a node selection needs x, y, z (planes), nodes or group");
  return selection;
}

MeshSpec ModelBuilder::mesh(const FlexibleSpec& spec, const std::string& item) const {
  auto count = [&](long n, const SourceLocation& where, const std::string& key) {
    if (n < 1 || n > 10'000'000) fail(where, item + "." + key, "expected a whole number >= 1", key);
    return static_cast<int>(n);
  };
  if (const auto* box = std::get_if<BoxMeshInput>(&spec.mesh)) {
    BoxMeshSpec b;
    for (std::size_t k = 0; k < 3; ++k) {
      b.size[k] = positive(box->size[k], "size", item + ".size");
      b.divisions[k] = count(box->divisions[k], box->divisions_where[k], "divisions");
    }
    return b;
  }
  if (const auto* beam = std::get_if<BeamMeshInput>(&spec.mesh)) {
    BeamMeshSpec b;
    b.length = positive(beam->length, "length", item + ".length");
    b.elements = count(beam->elements, beam->elements_where, "elements");
    b.planar = beam->planar;
    b.area = positive(beam->area, "area", item + ".section.area");
    b.Iz = positive(beam->Iz, "Iz", item + ".section.Iz");
    // A planar beam bends in the x–y plane only: Iy and J are not used and may be omitted.
    if (beam->Iy)
      b.Iy = positive(*beam->Iy, "Iy", item + ".section.Iy");
    else if (!beam->planar)
      fail(spec.mesh_where, item + ".section", "missing required key", "Iy");
    if (beam->J)
      b.J = positive(*beam->J, "J", item + ".section.J");
    else if (!beam->planar)
      fail(spec.mesh_where, item + ".section", "missing required key", "J");
    return b;
  }
  GmshMeshSpec gmsh;
  gmsh.path = std::get<GmshMeshInput>(spec.mesh).path;
  const std::filesystem::path written(gmsh.path);
  if (written.is_relative() && !model_->source.empty())
    gmsh.path = (std::filesystem::path(model_->source).parent_path() / written).string();
  return gmsh;
}

ModelBuilder& ModelBuilder::flexible(const Name& name, const FlexibleSpec& spec,
                                     const SourceLocation& where) {
  check_usable();
  const std::string item = "flexible." + name.text;
  FlexibleBody body;
  body.name = name.text;
  body.where = place(where, item);
  if (!is_valid_name(body.name)) fail(name.where, item, "not a valid name", body.name);
  if (!flexible_names_.insert(body.name).second)
    fail(name.where, item, "duplicate flexible body name", body.name);
  body.frame = frame_name(spec.frame, item + ".frame");
  body.mesh = mesh(spec, item + ".mesh");
  body.mesh_where = place(spec.mesh_where, item + ".mesh");
  body.material_where = place(spec.material_where, item + ".material");
  body.youngs_modulus = positive(spec.youngs_modulus, "E", item + ".material.E");
  body.density = positive(spec.density, "rho", item + ".material.rho");
  body.poisson_ratio =
      expression(spec.poisson_ratio, Dependence::Parameters, item + ".material.nu");
  const auto nu = at_defaults(body.poisson_ratio);
  if (!nu)
    fail(spec.poisson_ratio.origin().where, item + ".material.nu", "expected a real number", "nu");
  // ν = 0.5 makes the bulk modulus infinite (D singular); ν <= -1 makes the shear modulus
  // non-positive. Neither is an elastic solid this displacement formulation can represent.
  if (*nu >= 0.5 || *nu <= -1.0)
    fail(spec.poisson_ratio.origin().where, item + ".material.nu",
         "Poisson's ratio must lie in (-1, 0.5); got " + format_number(*nu), "nu");
  for (const auto& c : spec.clamp) body.clamp.push_back(node_selection(c, item + ".clamp"));
  for (const auto& p : spec.prescribed)
    body.prescribed.push_back(
        {node_selection(p.at, item + ".prescribed.at"),
         vector3(p.displacement, Dependence::TimeAndParameters, item + ".prescribed.displacement"),
         place(p.where, item + ".prescribed")});
  for (const auto& l : spec.loads) {
    FlexibleLoad load;
    load.where = place(l.where, item + ".loads");
    if (l.at) load.at = node_selection(*l.at, item + ".loads.at");
    load.force = vector3(l.force, Dependence::TimeAndParameters, item + ".loads.force");
    body.loads.push_back(std::move(load));
  }
  body.stiffening = spec.stiffening;
  body.rayleigh_alpha = non_negative(spec.rayleigh_alpha, "alpha", item + ".damping.alpha");
  body.rayleigh_beta = non_negative(spec.rayleigh_beta, "beta", item + ".damping.beta");
  model_->flexible.push_back(std::move(body));
  return *this;
}

// ---------------------------------------------------------------------------------------------
// The whole model

std::shared_ptr<const Model> ModelBuilder::build() {
  check_usable();
  ordered_frames();
  assemble_speeds();
  // A model whose only moving parts are flexible bodies on prescribed frames needs no
  // coordinate; any other model does.
  if (model_->coordinates.empty() && model_->flexible.empty())
    fail(coordinates_where_.value_or(SourceLocation{}), "coordinates",
         "at least one generalized coordinate is needed", "coordinates");
  built_ = true;
  return model_;
}

}  // namespace appell::model
