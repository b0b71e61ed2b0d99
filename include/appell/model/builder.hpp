// Building a model in code: the one place where a model is validated.
//
// ModelBuilder adds, in the words of the field, what a mechanical system is — parameters,
// generalized coordinates, prescribed functions, inputs, frames, rigid bodies, particles, gravity,
// loads, constraints, a carrier frame, independent speeds and flexible bodies — and build()
// returns the immutable model::Model that every algorithm takes. The YAML reader
// (io::parse_model) is a thin layer that translates the file into these calls: a model written in
// code is checked exactly as one written in a file, with the same messages.
//
//   appell::model::ModelBuilder b("pendulum");
//   b.parameter("m", 1).parameter("l", "0.5").parameter("g", "9.81");
//   b.coordinate("theta", 0.3);
//   b.frame("arm", {.rotation = appell::model::Rotation::z("theta")});
//   b.particle("bob", {.frame = "arm", .mass = "m", .position = {"l", 0, 0}});
//   b.gravity({0, "-g", 0});
//   auto model = b.build();
//
// Expressions are text in the model language (MODEL_FORMAT.md, "Expressions"), parsed with the
// names added so far, or GiNaC expressions over the builder's own symbols (parameter() and
// coordinate() return them, time() is t, derivative() gives dot(q) and ddot(q)); a GiNaC
// expression with a symbol the builder does not know is an error naming the symbol.
//
// Errors are model::ModelError. Items given with an Origin (a reader's file location) are
// reported there, "FILE:LINE:COLUMN: message (name)"; items built in code are reported by their
// place in the model instead, e.g. "bodies.arm.mass: mass must be positive (arm)".
#pragma once

#include <ginac/ginac.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "appell/model/expression_parser.hpp"
#include "appell/model/model.hpp"
#include "appell/model/source_location.hpp"

namespace appell::model {

/// Where a value given to the builder was written. Readers fill it; code leaves it empty, and
/// messages then name the item in the model ("bodies.arm.mass") in place of a file location.
struct Origin {
  SourceLocation where;  // the value's place; line 0 and no file: unknown
  TextLocator locate;    // for text: the place of each character (empty: on one line from `where`)

  bool known() const { return where.line > 0 || !where.file.empty(); }
};

/// An expression given to the builder: text in the model language, or a GiNaC expression over
/// the builder's symbols, or a number.
class Expr {
 public:
  Expr(const char* text) : value_(std::string(text)) {}
  Expr(std::string text) : value_(std::move(text)) {}
  Expr(const GiNaC::ex& value) : value_(value) {}
  Expr(int value) : value_(GiNaC::ex(value)) {}
  Expr(long value) : value_(GiNaC::ex(value)) {}
  /// A double is taken as written in decimal (0.1 stays 1/10 when it prints back as 0.1), so that
  /// the equations keep rational coefficients as from a model file.
  Expr(double value);
  /// Any GiNaC object: symbols, functions such as GiNaC::sin(q), numbers.
  template <class T>
  requires std::is_base_of_v<GiNaC::basic, T> Expr(const T& value) : value_(GiNaC::ex(value)) {}

  /// The same expression, located at `origin` (readers).
  Expr at(Origin origin) const;

  /// Whether it is text (a double is text too: its decimal spelling).
  bool is_text() const { return std::holds_alternative<std::string>(value_); }
  /// The text; std::bad_variant_access when it is a GiNaC expression.
  const std::string& text() const { return std::get<std::string>(value_); }
  /// The GiNaC expression; std::bad_variant_access when it is text.
  const GiNaC::ex& value() const { return std::get<GiNaC::ex>(value_); }
  const Origin& origin() const { return origin_; }

 private:
  std::variant<std::string, GiNaC::ex> value_;
  Origin origin_;
};

/// Three components along some frame's axes.
using Expr3 = std::array<Expr, 3>;

/// A name given to the builder (a frame, a body, a coordinate ...) and where it was written.
struct Name {
  Name(const char* text) : text(text) {}
  Name(std::string text, SourceLocation where = {})
      : text(std::move(text)), where(std::move(where)) {}
  std::string text;
  SourceLocation where;
};

/// A frame's rotation relative to its parent, R_parent_child: a product of elementary rotations
/// (applied in the order written, like rot_z(a)*rot_x(b) in a model file) or a matrix.
class Rotation {
 public:
  /// The identity.
  Rotation() = default;
  /// A rotation written in the model language: rot_x(a), rot_y(a), rot_z(a), rot(ax, ay, az, a)
  /// or a product of them (parsed, and checked, when the builder receives it).
  Rotation(const char* text);
  Rotation(std::string text);
  /// About the parent's x, y or z axis by `angle` (radians).
  static Rotation x(const Expr& angle);
  static Rotation y(const Expr& angle);
  static Rotation z(const Expr& angle);
  /// About a constant axis (parent components; numbers and parameters only, any non-zero
  /// length: it is normalised) by `angle`.
  static Rotation about(const Expr3& axis, const Expr& angle);
  /// The rotation of a unit quaternion rot_quat(e0, e1, e2, e3): four distinct coordinates, e0
  /// the scalar part (model::quaternion_matrix). Its frame gives its angular velocity as three
  /// speeds (FrameSpec::speeds), and nothing may turn the frame after it.
  static Rotation quaternion(const Name& e0, const Name& e1, const Name& e2, const Name& e3);
  /// A parent-from-child rotation matrix given by its rows. The builder checks that it is
  /// orthonormal with determinant +1 (tolerance 1e-9): as given when its entries are numbers,
  /// and at three sample states (parameters at their defaults) when they are not.
  static Rotation matrix(const std::array<Expr3, 3>& rows);

  /// This rotation followed by `then` (in the frame turned by this one).
  Rotation operator*(const Rotation& then) const;
  /// The same rotation, located at `origin` (readers).
  Rotation at(Origin origin) const;

  /// One factor as given, for the builder to check and convert.
  struct Part {
    enum class Kind { Text, Axis, Matrix };
    Kind kind = Kind::Text;
    std::string text;
    std::vector<Expr> values;  // Axis: ax, ay, az, angle; Matrix: 9 entries by rows
  };
  const std::vector<Part>& parts() const { return parts_; }
  const Origin& origin() const { return origin_; }

 private:
  std::vector<Part> parts_;
  Origin origin_;
};

/// A body's inertia about its centre of mass, in its frame's axes.
class Inertia {
 public:
  /// None (a point mass).
  Inertia() = default;
  /// A symmetric 3×3 matrix by rows (kg·m²). The builder checks that it is symmetric and, at the
  /// parameters' defaults, positive semi-definite with principal moments that satisfy the
  /// triangle inequality (I1 ≤ I2 + I3); every form below is checked the same way.
  static Inertia matrix(const std::array<Expr3, 3>& rows);
  /// The tensor's entries [Ixx, Iyy, Izz, Ixy, Iyz, Ixz] (Ixy = −∫xy dm, the tensor's own entry).
  static Inertia entries(const Expr& ixx, const Expr& iyy, const Expr& izz, const Expr& ixy = 0,
                         const Expr& iyz = 0, const Expr& ixz = 0);
  /// Homogeneous shapes, their axis "x", "y" or "z": a thin rod (m L²/12 transverse), a thin
  /// disk (m r²/2 axial, m r²/4 transverse), a solid cylinder (m r²/2 axial, m (3r² + L²)/12
  /// transverse), a box of edges a, b, c along x, y, z (Ixx = m (b² + c²)/12 ...), a solid sphere
  /// (2/5 m r²); m is the body's mass. Lengths and radii may use numbers and parameters only and
  /// must be positive at their defaults (a box's edges >= 0: a plate); an axis other than "x",
  /// "y", "z" is a ModelError when the builder receives it.
  static Inertia rod(const Expr& length, const Name& axis);
  static Inertia disk(const Expr& radius, const Name& axis);
  static Inertia cylinder(const Expr& radius, const Expr& length, const Name& axis);
  static Inertia box(const Expr3& size);
  static Inertia sphere(const Expr& radius);
  /// The same inertia, located at `origin` (readers).
  Inertia at(Origin origin) const;

  /// Which form was given, with its values() in the order of the factory's arguments.
  enum class Kind { None, Matrix, Entries, Rod, Disk, Cylinder, Box, Sphere };
  Kind kind() const { return kind_; }
  const std::vector<Expr>& values() const { return values_; }
  const std::optional<Name>& axis() const { return axis_; }
  const Origin& origin() const { return origin_; }

 private:
  Kind kind_ = Kind::None;
  std::vector<Expr> values_;
  std::optional<Name> axis_;
  Origin origin_;
};

/// A frame placed in its parent: origin at `translation`, axes turned by `rotation`; both may
/// depend on coordinates, prescribed functions, inputs and t (positions in m, angles in rad).
struct FrameSpec {
  Name parent = "world";
  Expr3 translation{0, 0, 0};  // origin in the parent, parent components
  Rotation rotation{};         // R_parent_child
  /// With a rotation by rot_quat: the names of the three generalized speeds w1, w2, w3, the
  /// quaternion's angular velocity in the frame's own axes (ė = ½ e ⊗ (0, w)). Empty otherwise.
  std::vector<Name> speeds{};
};

/// A rigid body moving with `frame`. The mass (kg; numbers and parameters) must be positive at
/// the parameters' defaults; the default 0 is rejected.
struct BodySpec {
  Name frame = "world";
  Expr mass = 0;
  Expr3 com{0, 0, 0};  // in the frame
  Inertia inertia{};   // about the centre of mass
};

/// A point mass fixed in `frame`; the mass as for a body.
struct ParticleSpec {
  Name frame = "world";
  Expr mass = 0;
  Expr3 position{0, 0, 0};  // in the frame
};

/// A point fixed in a frame, or in a body's frame (then its components are in that frame too, and
/// measured from the frame's origin, not from the centre of mass).
struct PointSpec {
  Name on = "world";  // a frame or a body
  Expr3 point{0, 0, 0};
};

/// A force (N) at a point: at the centre of mass of body `on`, or the origin of frame `on`, unless
/// `at` is given. Components may depend on q, q̇, t, inputs, prescribed functions and speeds'
/// names, never on accelerations (Dependence::Loads); `at` as a position.
struct ForceSpec {
  Expr3 force{0, 0, 0};
  Name on = "world";          // a frame or a body (acting at its centre of mass by default)
  std::optional<Expr3> at{};  // application point in the frame of `on`
  std::optional<Name> in{};   // frame of the force's components (default world)
};

/// A moment (N·m) on a frame, or on a body's frame.
struct TorqueSpec {
  Expr3 torque{0, 0, 0};
  Name on = "world";         // the frame (or body's frame) that receives the moment
  std::optional<Name> in{};  // frame of the components (default world)
};

/// A linear spring between two points: stiffness k (N/m), rest length L0 (m, >= 0 where it is a
/// number at the parameters' defaults); potential ½ k (d − L0)², d the distance of the points.
/// Both may depend on what a potential may (Dependence::Potentials), never on velocities.
struct SpringSpec {
  PointSpec from{}, to{};
  Expr stiffness = 0;
  Expr rest_length = 0;
};

/// A linear damper between two points: force c ḋ (c in N·s/m) along the line joining them; c
/// may depend on velocities, never on accelerations (Dependence::Damping).
struct DamperSpec {
  PointSpec from{}, to{};
  Expr coefficient = 0;
};

/// A coordinate's limits (model::CoordinateLimits: reported, never enforced), each optional:
/// numbers and parameters, evaluated at their defaults; lower ≤ upper, velocity and effort ≥ 0.
struct LimitsSpec {
  std::optional<Expr> lower{}, upper{}, velocity{}, effort{};
};

/// Geometry drawn with a frame (model::Visual), for visualisation only: placed in `frame` by
/// `translation` and `rotation`; sizes and the placement are numbers and parameters.
struct VisualSpec {
  Name frame = "world";
  Expr3 translation{0, 0, 0};
  Rotation rotation{};  // constant
  Visual::Shape shape = Visual::Shape::Box;
  Expr3 size{0, 0, 0};  // box: edges (positive); cylinder: radius, length; sphere: radius;
                        // mesh: scale
  std::string mesh{};   // Shape::Mesh: the file name (not read)
};

/// A set of nodes of a flexible body's mesh (MODEL_FORMAT.md, "Flexible bodies").
struct NodeSelectionSpec {
  std::array<std::optional<Expr>, 3> plane{};  // x = X, y = Y, z = Z (all given must hold)
  std::vector<long> nodes{};                   // 0-based node indices
  std::vector<SourceLocation> nodes_where{};   // where each index was written (readers)
  std::string group{};                         // a Gmsh physical group
  SourceLocation where{};
};

/// A box meshed with 8-node hexahedra: x in [0, L], y in [−b/2, b/2], z in [−h/2, h/2] of the
/// frame (sizes positive, m; divisions whole numbers ≥ 1).
struct BoxMeshInput {
  Expr3 size{1, 1, 1};                     // L, b, h
  std::array<long, 3> divisions{1, 1, 1};  // elements along x, y, z
  std::array<SourceLocation, 3> divisions_where{};
};
/// A beam along the frame's x axis from 0 to `length` (m), `elements` Euler–Bernoulli elements;
/// section area A (m²), second moments Iy, Iz and torsion constant J (m⁴), all positive.
struct BeamMeshInput {
  Expr length = 1;
  long elements = 1;
  SourceLocation elements_where{};
  Expr area = 1, Iz = 1;
  std::optional<Expr> Iy{}, J{};  // required unless planar
  bool planar = false;
};
/// A Gmsh MSH 4.1 ASCII file (fem/mesh.hpp, read_gmsh), node positions in m in the frame.
struct GmshMeshInput {
  std::string path{};  // relative paths are resolved against the model's source file
};

/// A force (N, frame components, expressions of t and parameters) on each node of `at`, or, with
/// `at` empty, a force per unit volume (N/m³) on the whole body.
struct FlexibleLoadSpec {
  std::optional<NodeSelectionSpec> at{};  // nullopt: a body force per unit volume
  Expr3 force{0, 0, 0};
  SourceLocation where{};
};

/// A displacement (m, frame components, expressions of t and parameters) imposed on nodes.
struct PrescribedDisplacementSpec {
  NodeSelectionSpec at{};
  Expr3 displacement{0, 0, 0};
  SourceLocation where{};
};

/// A flexible body (MODEL_FORMAT.md, "Flexible bodies"): a mesh on a floating frame of the model,
/// an isotropic linear material (E > 0 in Pa, ν in (−1, 0.5), ρ > 0 in kg/m³), supports
/// (`clamp`), prescribed displacements, loads, geometric stiffening and Rayleigh damping
/// (α, β ≥ 0).
struct FlexibleSpec {
  Name frame = "world";
  std::variant<BoxMeshInput, BeamMeshInput, GmshMeshInput> mesh{};
  SourceLocation mesh_where{};
  Expr youngs_modulus = 1, poisson_ratio = 0, density = 1;  // E, ν, ρ
  SourceLocation material_where{};
  std::vector<NodeSelectionSpec> clamp{};
  std::vector<PrescribedDisplacementSpec> prescribed{};
  std::vector<FlexibleLoadSpec> loads{};
  bool stiffening = true;
  Expr rayleigh_alpha = 0, rayleigh_beta = 0;  // damping C = αM + βK
};

/// Builds and validates a model::Model. Every adding call checks what it is given at once and
/// throws model::ModelError; build() checks what needs the whole model and returns it. Common
/// to the adding calls: a name must be valid ([A-Za-z][A-Za-z0-9_]*), not reserved (t, pi, world,
/// the functions of the language) and not used before by any parameter, coordinate, prescribed
/// function, input, frame, body or particle (constraints and flexible bodies have their own
/// names); an expression may use only the names added before it, and only what its place allows
/// (model::Dependence, dependence.hpp: numbers and parameters for masses, inertias, initial values
/// and axes; also t for prescribed functions and gravity; also coordinates, prescribed functions
/// and inputs for positions, rotations, potentials and springs; also velocities for dampers and
/// loads, and speeds' names for loads; accelerations nowhere), and only numbers a double holds
/// (fits_double). Any adding call after build() throws ModelError.
class ModelBuilder {
 public:
  /// `source` is the file a reader read the model from ("" in code): relative mesh paths are
  /// resolved against its folder.
  explicit ModelBuilder(const std::string& name, const std::string& source = "");

  /// A free text describing the model (Model::description).
  ModelBuilder& description(const std::string& text);

  /// Checks, in the order given, that each name is valid ([A-Za-z][A-Za-z0-9_]*), not reserved,
  /// and not defined twice whatever its kind. Readers call it first with every name of the file
  /// in file order, so that the second of two definitions is the one reported; the adding calls
  /// check their own name the same way.
  void declare_names(const std::vector<Name>& names);

  /// A parameter with its default value (numbers, pi and earlier parameters; it must evaluate to
  /// a finite real number). Returns its symbol.
  GiNaC::symbol parameter(const Name& name, const Expr& value);
  /// A generalized coordinate q(t) with its initial value and rate (numbers and parameters,
  /// evaluated at their defaults to finite reals). Coordinates are numbered in the order added:
  /// that is the order of q in every vector and matrix. Returns the symbol of q.
  GiNaC::symbol coordinate(const Name& name, const Expr& initial = 0, const Expr& velocity = 0);
  /// Limits of a coordinate added before (LimitsSpec); replaces any given earlier.
  ModelBuilder& limits(const Name& coordinate, const LimitsSpec& spec,
                       const SourceLocation& where = {});
  /// Where the list of coordinates was written (for "at least one generalized coordinate").
  void coordinates_at(const SourceLocation& where);
  /// A prescribed function of time: given by an expression of t and parameters (substituted
  /// wherever it is used), or unspecified (nullopt: its value comes with the values bound at
  /// evaluation). Returns what the name stands for in expressions.
  GiNaC::ex prescribed(const Name& name, const std::optional<Expr>& expression_of_t = std::nullopt);
  /// An input (a control given at run time, 0 unless given a value). Returns its symbol.
  GiNaC::symbol input(const Name& name);
  /// A frame; frames may be added in any order (parents are resolved once all are known: an
  /// unknown parent or a cycle is reported by the first call that needs the frame tree, at the
  /// latest build()). A rotation matrix that is not a rotation throws at once.
  ModelBuilder& frame(const Name& name, const FrameSpec& spec);
  /// The carrier frame of relative motion (seed 003): not world, and neither it nor any frame
  /// above it may move with a coordinate (its motion depends on t and prescribed functions only).
  /// Checked against the frames and coordinates added so far: add them first.
  ModelBuilder& relative_to(const Name& frame);
  /// A rigid body; its frame must have been added (BodySpec, Inertia give the checks).
  ModelBuilder& body(const Name& name, const BodySpec& spec);
  /// A point mass; its frame must have been added.
  ModelBuilder& particle(const Name& name, const ParticleSpec& spec);
  /// Gravity's acceleration (m/s²), world components (expressions of t and parameters), e.g.
  /// {0, "-g", 0}. Acts at every body's centre of mass and every particle.
  ModelBuilder& gravity(const Expr3& g);
  /// A force (ForceSpec). `where` locates the load in errors (readers); in code, errors name
  /// it "loads[K]", K its index among the loads. `on` must name a frame or body, `in` a frame,
  /// already added. The same holds for torque, spring, damper, generalized_force and potential.
  ModelBuilder& force(const ForceSpec& spec, const SourceLocation& where = {});
  /// A moment on a frame or body (TorqueSpec).
  ModelBuilder& torque(const TorqueSpec& spec, const SourceLocation& where = {});
  /// A linear spring (SpringSpec).
  ModelBuilder& spring(const SpringSpec& spec, const SourceLocation& where = {});
  /// A linear damper (DamperSpec).
  ModelBuilder& damper(const DamperSpec& spec, const SourceLocation& where = {});
  /// A generalized force Q on one coordinate (already added), added to its equation's forcing.
  ModelBuilder& generalized_force(const Name& coordinate, const Expr& value,
                                  const SourceLocation& where = {});
  /// A potential energy V(q, t): its generalized force −∂V/∂q.
  ModelBuilder& potential(const Expr& potential, const SourceLocation& where = {});
  /// Names the load added last (a load's `name:`), so that claims (`load: NAME`) and reports can
  /// refer to it by name rather than by position. Load names are their own namespace: unique
  /// among the loads, and never `gravity` (which claims use for the weight). Throws ModelError
  /// when no load was added yet, for an invalid or repeated name, or for a load already named.
  ModelBuilder& name_load(const Name& name);
  /// A holonomic constraint f(q, t) = 0 (no velocities, no accelerations), its multiplier
  /// lambda_NAME. Constraint names are their own namespace: unique among constraints.
  ModelBuilder& holonomic_constraint(const Name& name, const Expr& expression,
                                     const SourceLocation& where = {});
  /// A nonholonomic constraint a(q, t)·q̇ + a0(q, t) = 0 (linear in the velocities, no
  /// accelerations; anything else throws).
  ModelBuilder& nonholonomic_constraint(const Name& name, const Expr& expression,
                                        const SourceLocation& where = {});
  /// The coordinates whose speeds are independent (one per degree of freedom the constraints
  /// leave: n − m of them, each once), so that the minimal form can be formed; add the
  /// constraints first. Throws ModelError for an unknown or repeated coordinate, a wrong count,
  /// or a choice whose dependent block of the constraint Jacobian is singular at the initial
  /// state (parameters at defaults, t = 0, inputs and unspecified functions 0).
  ModelBuilder& independent(const std::vector<Name>& coordinates, const SourceLocation& where = {});
  /// A generalized speed u = Y(q, t)·q̇ (`speeds:`): `value` linear in the coordinates'
  /// velocities, without a term free of them, and not using the rate of a quaternion's
  /// coordinate. Speeds are numbered in the order added (then the quaternion frames', then the
  /// own rates of the coordinates no declared speed mentions); build() checks that the speeds
  /// mention as many coordinates as there are speeds and that Y is invertible (symbolically and
  /// at the initial state). Throws ModelError for a bad name or value.
  ModelBuilder& speed(const Name& name, const Expr& value, const SourceLocation& where = {});
  /// Where the list of speeds was written (for the errors about the whole list).
  void speeds_at(const SourceLocation& where);
  /// Parameters and coordinates known to stay positive (`positive:`), so that readable forms may
  /// write √(x²) as x (Model::positive); add them first. Throws ModelError for a name that is
  /// neither a parameter nor a coordinate, or one listed twice.
  ModelBuilder& positive(const std::vector<Name>& names, const SourceLocation& where = {});
  /// A flexible body meshed with finite elements on a floating frame (fem/); FlexibleSpec gives
  /// the checks. Its name is unique among flexible bodies. A Gmsh file is only read later
  /// (fem::build_flexible_body).
  ModelBuilder& flexible(const Name& name, const FlexibleSpec& spec,
                         const SourceLocation& where = {});

  /// Geometry to draw with a frame already added (VisualSpec); never part of the dynamics.
  ModelBuilder& visual(const VisualSpec& spec, const SourceLocation& where = {});

  /// The symbol of t.
  GiNaC::symbol time() const;
  /// d^order/dt^order (order ≥ 0) of a coordinate, prescribed function or input added before:
  /// its derivative symbol (dot(q) for order 1), or the derivative of a prescribed expression.
  /// Throws ModelError located at "derivative" for any other name or a negative order.
  GiNaC::ex derivative(const std::string& name, int order = 1);
  /// Parses an expression in the model language with the names added so far (anything
  /// allowed). Throws ModelError located at "expression, character K".
  GiNaC::ex parse(const std::string& text) const;

  /// Checks what needs the whole model (every frame's parent exists, no cycle; at least one
  /// coordinate unless the model has flexible bodies) and returns it. Any adding call after
  /// build() throws ModelError.
  std::shared_ptr<const Model> build();

 private:
  enum class Section { Parameters, Coordinates, Prescribed, Inputs, Frames, Bodies, Particles };

  [[noreturn]] void fail(const SourceLocation& where, const std::string& item,
                         const std::string& message, const std::string& offending = "") const;
  SourceLocation place(const SourceLocation& where, const std::string& item) const;
  void define(const Name& name, const std::string& item);
  GiNaC::ex expression(const Expr& e, Dependence allowed, const std::string& item) const;
  Vector3 vector3(const Expr3& v, Dependence allowed, const std::string& item) const;
  std::optional<double> at_defaults(const GiNaC::ex& e) const;
  double number(const Expr& e, const std::string& item, const std::string& key);
  GiNaC::ex mass(const Expr& e, const std::string& owner, const std::string& item) const;
  GiNaC::ex positive(const Expr& e, const std::string& key, const std::string& item) const;
  GiNaC::ex non_negative(const Expr& e, const std::string& key, const std::string& item) const;
  std::vector<RotationFactor> rotation(const Rotation& r, const std::string& frame,
                                       const std::string& item, Dependence allowed,
                                       std::vector<GiNaC::ex>* quaternion = nullptr);
  void check_numbers(const GiNaC::ex& e, const SourceLocation& where) const;
  GiNaC::matrix inertia(const Inertia& in, const GiNaC::ex& mass, const std::string& item) const;
  void check_inertia(const GiNaC::matrix& inertia, const SourceLocation& where,
                     const std::string& body, const std::string& item) const;
  const std::vector<Frame>& ordered_frames();
  std::string frame_name(const Name& name, const std::string& item);
  std::string next_load_item() const;
  PointRef attachment(const Name& name, const std::string& item);
  PointRef point(const PointSpec& p, const std::string& item);
  void constraint(const Name& name, Constraint::Kind kind, const Expr& expression,
                  const SourceLocation& where);
  void check_dependent_block() const;
  NodeSelection node_selection(const NodeSelectionSpec& s, const std::string& item) const;
  MeshSpec mesh(const FlexibleSpec& spec, const std::string& item) const;
  void check_usable() const;
  void assemble_speeds();
  void frame_speeds(const Frame& f, const FrameSpec& spec, const std::string& item,
                    const std::vector<GiNaC::ex>& quaternion);

  std::shared_ptr<Model> model_;
  mutable ExpressionScope scope_;
  GiNaC::exmap defaults_;  // parameter symbol -> default value, for checks of numbers and masses
  std::map<std::string, SourceLocation> defined_;  // every name, where it was defined
  std::set<std::string> added_;
  std::vector<Frame> written_frames_;  // as added, before ordering
  std::vector<SourceLocation> written_parent_where_;
  bool frames_ordered_ = false;
  std::optional<SourceLocation> coordinates_where_;
  std::map<std::string, std::size_t> body_index_;
  struct FrameSpeeds {
    std::string frame;
    std::vector<Name> names;
    std::vector<GiNaC::ex> quaternion;  // e0..e3
    SourceLocation where, rotation_where;
  };
  std::vector<FrameSpeeds> frame_speeds_;  // the quaternion frames, in the order added
  std::vector<Speed> declared_speeds_;
  std::optional<SourceLocation> speeds_where_;
  std::set<std::string> flexible_names_, constraint_names_, load_names_;
  bool built_ = false;
};

}  // namespace appell::model
