// The Model value: what a mechanical system is (MODEL_FORMAT.md), as GiNaC expressions.
//
// A Model is built once (by model::ModelBuilder, which io::read_model_file uses) and never
// mutated by an algorithm, except that its shared time_functions table gains higher derivative
// symbols (dddot(q) ...) as differentiation asks for them.
// Expressions refer to the symbols of `time_functions` (t, coordinates and their derivatives,
// unspecified prescribed functions, inputs) and to the parameters' symbols. A prescribed
// function given by an expression of t is already substituted wherever it was used.
#pragma once

#include <ginac/ginac.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "appell/model/flexible.hpp"
#include "appell/model/source_location.hpp"
#include "appell/sym/time_functions.hpp"

namespace appell::model {

/// Three components along some frame's axes.
using Vector3 = std::array<GiNaC::ex, 3>;

/// A named constant of the model (a length, a mass ...), SI units by convention: appell itself
/// never converts units, so numbers must only be consistent.
struct Parameter {
  std::string name;
  GiNaC::symbol symbol;     // a plain GiNaC symbol named like the parameter
  GiNaC::ex default_value;  // a number or an expression of earlier parameters
  SourceLocation where;     // where defined; in code, its place ("parameters.m", line 0)
};

/// The limits a robot description gives a coordinate (a URDF joint's <limit>): reported with
/// the results, never enforced by the equations or the simulation. Each bound is optional.
struct CoordinateLimits {
  std::optional<double> lower, upper;  // range of q (rad or m)
  std::optional<double> velocity;      // bound on |dot(q)|
  std::optional<double> effort;        // bound on the generalized force |Q| (N·m or N)
};

/// A generalized coordinate q_j(t). Its symbols q, dot(q), ddot(q) ... are in
/// Model::time_functions (Model::coordinate_symbol); its index j in Model::coordinates is the
/// row and column of M, f and every vector of q, q̇, q̈.
struct Coordinate {
  std::string name;
  double initial = 0.0;   // q(0), radians or metres
  double velocity = 0.0;  // dot(q)(0)
  std::optional<CoordinateLimits> limits;
  SourceLocation where;
};

/// A function of time the model prescribes: by an expression of t and the parameters (already
/// substituted wherever it is used), or unspecified, its values given at evaluation
/// (model::Values) like an input's.
struct Prescribed {
  std::string name;
  std::optional<GiNaC::ex> expression;  // nullopt: unspecified function of time (dot/ddot kept)
  SourceLocation where;
};

/// An input: a control u(t) given at evaluation (model::Values), 0 when not given.
struct Input {
  std::string name;
  SourceLocation where;
};

/// One factor of a rotation: about a unit axis (parent components) by an angle, or a matrix.
struct RotationFactor {
  enum class Kind { Axis, Matrix };
  Kind kind = Kind::Axis;
  Vector3 axis;          // Kind::Axis: unit axis, constant
  GiNaC::ex angle;       // Kind::Axis
  GiNaC::matrix matrix;  // Kind::Matrix: parent-from-child 3×3
};

/// The rotation matrix of the quaternion e = (e0, e1, e2, e3), e0 the scalar part: v_parent =
/// e ⊗ v_child ⊗ e*, divided by |e|² so that it is a rotation whatever the length of e (which
/// then never enters the dynamics).
GiNaC::matrix quaternion_matrix(const GiNaC::ex& e0, const GiNaC::ex& e1, const GiNaC::ex& e2,
                                const GiNaC::ex& e3);

/// A reference frame, placed relative to its parent by a translation and a rotation that may
/// depend on the coordinates, prescribed functions and t.
struct Frame {
  std::string name;
  std::string parent = "world";
  Vector3 translation{0, 0, 0};          // origin in the parent, parent components
  std::vector<RotationFactor> rotation;  // R_parent_child = product in order; empty = identity
  SourceLocation where;
};

/// The homogeneous solid a body's inertia was given as (`inertia: {box: ..}` ...): what a
/// picture of the body draws. It never enters the dynamics (Body::inertia does).
struct BodyShape {
  enum class Kind { Rod, Disk, Cylinder, Box, Sphere };
  Kind kind = Kind::Box;
  /// As given (numbers and parameters): rod length; disk radius; cylinder radius, length; box
  /// edges along x, y, z; sphere radius.
  std::vector<GiNaC::ex> sizes;
  int axis = 2;  // rod, disk, cylinder: 0, 1, 2 for the frame's x, y, z
};

/// A rigid body fixed in a frame: mass (positive), centre of mass and inertia about it.
struct Body {
  std::string name;
  std::string frame;  // the frame the body moves with ("world" or a frame's name)
  GiNaC::ex mass;
  Vector3 com{0, 0, 0};   // in the frame
  GiNaC::matrix inertia;  // 3×3 about the centre of mass, frame axes
  SourceLocation where;
  /// The shape the inertia was given as; none for a matrix or the tensor's entries.
  std::optional<BodyShape> shape{};
};

/// A point mass fixed in a frame.
struct Particle {
  std::string name;
  std::string frame;
  GiNaC::ex mass;
  Vector3 position{0, 0, 0};  // in the frame
  SourceLocation where;
};

/// Geometry drawn with a frame, for visualisation only: it never enters the dynamics. Placed in
/// `frame` by `translation` and `rotation` (as a frame is in its parent); a box of edges
/// size[0..2] along its x, y, z, a cylinder of radius size[0] and length size[1] along its z, a
/// sphere of radius size[0], or a mesh file (not read: only named) scaled by size[0..2].
struct Visual {
  enum class Shape { Box, Cylinder, Sphere, Mesh };
  std::string frame;
  Vector3 translation{0, 0, 0};
  std::vector<RotationFactor> rotation;
  Shape shape = Shape::Box;
  std::array<double, 3> size{0, 0, 0};
  std::string mesh;  // Shape::Mesh: the file name as written (a URDF's package:// URI ...)
  SourceLocation where;
};

/// A point fixed in a frame.
struct PointRef {
  std::string frame;       // "world" or a frame's name
  Vector3 point{0, 0, 0};  // in the frame, frame components
};

/// A force F (N) applied at a point: virtual work F·δr.
struct ForceLoad {
  Vector3 force;
  PointRef at;               // application point (frame of `on`)
  std::string in = "world";  // frame of the force components
};
/// A moment M (N·m) applied to a frame: virtual work M·δθ of the frame's rotation.
struct TorqueLoad {
  Vector3 torque;
  std::string on;  // frame that receives the moment
  std::string in = "world";
};
/// A linear spring between two points, force k (d − L0) along the line joining them (potential
/// ½ k (d − L0)², principles/potential_energy.hpp).
struct SpringLoad {
  PointRef from, to;
  GiNaC::ex stiffness;        // k, N/m
  GiNaC::ex rest_length = 0;  // L0, m
};
/// A linear damper between two points: force c ḋ along the line joining them, opposing the rate
/// of change of their distance.
struct DamperLoad {
  PointRef from, to;
  GiNaC::ex coefficient;  // c, N·s/m
};
/// A generalized force Q added to one coordinate's equation.
struct GeneralizedLoad {
  std::size_t coordinate = 0;  // index into Model::coordinates
  GiNaC::ex value;
};
/// A potential energy V(q, t): generalized forces −∂V/∂q_j.
struct PotentialLoad {
  GiNaC::ex potential;
};

using LoadKind =
    std::variant<ForceLoad, TorqueLoad, SpringLoad, DamperLoad, GeneralizedLoad, PotentialLoad>;

/// One load of the model and where it was written.
struct Load {
  LoadKind kind;
  SourceLocation where;
  std::string name;  // `name:` of the load, "" when unnamed; unique among the loads
};

/// A constraint: holonomic f(q, t) = 0, or nonholonomic, linear in the velocities
/// a(q, t)·q̇ + a0(q, t) = 0. Each gets a Lagrange multiplier lambda_NAME.
struct Constraint {
  enum class Kind { Holonomic, Nonholonomic };
  std::string name;
  Kind kind = Kind::Holonomic;
  GiNaC::ex expression;
  SourceLocation where;
};

/// A generalized speed u_k (MODEL_FORMAT.md, "Speeds"): declared as a combination of the
/// velocities u = Y(q, t)·q̇ (`speeds:`), one of a quaternion frame's angular velocity components
/// in its own axes (a frame's `speeds: [w1, w2, w3]`), or, for a coordinate no declared speed
/// mentions, the coordinate's own rate dot(q) (named so).
struct Speed {
  enum class Kind { Declared, Frame, Coordinate };
  std::string name;
  Kind kind = Kind::Declared;
  GiNaC::ex value;             // Declared: the expression, linear in the velocities
  std::string frame;           // Frame: the frame it turns
  std::size_t axis = 0;        // Frame: 0, 1, 2 for the frame's x, y, z
  std::size_t coordinate = 0;  // Coordinate: its index
  SourceLocation where;
};

/// A frame turned by a unit quaternion, rot_quat(e0, e1, e2, e3) (e0 the scalar part): the last
/// factor of its rotation is the Kind::Matrix quaternion_matrix(e), and its three speeds
/// (Speed::Kind::Frame) are that factor's angular velocity in the frame's axes.
struct Quaternion {
  std::string frame;
  std::array<std::size_t, 4> coordinates{};  // e0, e1, e2, e3 (indices into Model::coordinates)
  SourceLocation where;                      // the rotation
};

/// A mass at a point: a body's centre of mass or a particle. Every translational term
/// (½ m v², ½ m a², m g, m a) is a sum over these.
struct MassPoint {
  GiNaC::ex mass;
  PointRef point;
};

/// What a mechanical system is. Every vector of numbers appell takes or returns for a model
/// (q, q̇, q̈, f, the rows and columns of M) is in the order of `coordinates`; every vector of
/// multipliers in the order of `constraints`.
struct Model {
  std::string name;
  std::string description;
  std::string source;  // file the model came from ("" when built in code)
  std::shared_ptr<sym::TimeFunctions> time_functions = std::make_shared<sym::TimeFunctions>();

  std::vector<Parameter> parameters;
  std::vector<Coordinate> coordinates;
  std::vector<Prescribed> prescribed;
  std::vector<Input> inputs;
  std::vector<Frame> frames;  // parents before children; `world` is implicit
  std::vector<Body> bodies;
  std::vector<Particle> particles;
  std::optional<Vector3> gravity;  // world components
  std::vector<Load> loads;
  std::vector<Constraint> constraints;
  /// Coordinates whose speeds are independent (`independent:`, in the order written), so that
  /// the minimal form by quasi-accelerations can be formed (principles/minimal_form.hpp); empty
  /// without. There are dof() − constraints.size() of them.
  std::vector<std::size_t> independent;
  SourceLocation independent_where;
  /// Parameters and coordinates (their symbols) known to stay positive (`positive:`): readable
  /// forms write √(x²) as x rather than |x|. Empty without.
  std::vector<GiNaC::symbol> positive;
  /// A carrier frame (seed 003) whose motion depends on t and prescribed functions only: the
  /// relative motion's inertial forces are reported separately (principles/relative_motion.hpp).
  std::optional<std::string> relative_to;
  SourceLocation relative_to_where;
  /// Flexible bodies meshed with finite elements, each on a floating frame (fem/).
  std::vector<FlexibleBody> flexible;
  /// Geometry to draw, in the order given (none of it enters the equations).
  std::vector<Visual> visuals;
  /// Generalized speeds u (empty without `speeds:` or a quaternion frame): the declared ones,
  /// then the quaternion frames' in the order the frames were written, then dot(q) of every
  /// other coordinate. The equations are then formed in u̇ (principles/speed_form.hpp), with the
  /// kinematic equations q̇ = W(q, t) u.
  std::vector<Speed> speeds;
  SourceLocation speeds_where;  // the `speeds:` list, or the first quaternion frame
  /// The frames turned by rot_quat, in the order written.
  std::vector<Quaternion> quaternions;
  /// W (n × speeds.size()): q̇ = W u; the inverse of Y for declared speeds, ½ E(e) for a
  /// quaternion (ė = ½ e ⊗ (0, w)), the unit column for a coordinate's own rate.
  GiNaC::matrix speed_kinematics;

  /// n, the number of generalized coordinates.
  std::size_t dof() const { return coordinates.size(); }
  /// q_j, dot(q_j), ddot(q_j), ... for coordinate j (order 0, 1, 2, ...), created in
  /// time_functions if that order is new. Throws std::out_of_range when j ≥ dof().
  GiNaC::symbol coordinate_symbol(std::size_t j, int order = 0) const;
  /// Whether the model has generalized speeds (then derive and simulate work in them).
  bool has_speeds() const { return !speeds.empty(); }
  /// u_k, dot(u_k), ... (order 0, 1, ...) of speed k: dot(q) ... for a coordinate's own rate.
  GiNaC::symbol speed_symbol(std::size_t k, int order = 0) const;
  /// The quaternion turning `frame`, or nullptr.
  const Quaternion* quaternion_of(const std::string& frame) const;
  /// Index of a frame in `frames`, or -1 for world; nullopt if no such frame.
  std::optional<int> frame_index(const std::string& name) const;
  /// The parameter called `name`, or nullptr.
  const Parameter* find_parameter(const std::string& name) const;
  /// The centres of mass of the bodies, then the particles.
  std::vector<MassPoint> mass_points() const;

  /// Numeric parameter values: defaults evaluated in order, `overrides` taking precedence (a
  /// shorthand for bind(*this, overrides).parameters, model/values.hpp, with parameters only).
  /// Throws ModelError naming an override that is not a parameter ("unknown parameter", located
  /// at Values::default_location()) or not finite, or at a parameter whose default is not a
  /// real number.
  std::map<std::string, double> parameter_values(
      const std::map<std::string, double>& overrides = {}) const;
  /// The same values as a substitution parameter symbol -> number; throws as parameter_values.
  GiNaC::exmap parameter_substitution(const std::map<std::string, double>& overrides = {}) const;
};

}  // namespace appell::model
