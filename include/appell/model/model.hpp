// The Model value: what a mechanical system is (MODEL_FORMAT.md), as GiNaC expressions.
//
// A Model is built once (by io::read_model or by hand) and never mutated by an algorithm.
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

struct Parameter {
  std::string name;
  GiNaC::symbol symbol;
  GiNaC::ex default_value;  // a number or an expression of earlier parameters
  SourceLocation where;
};

struct Coordinate {
  std::string name;
  double initial = 0.0;   // q(0)
  double velocity = 0.0;  // dot(q)(0)
  SourceLocation where;
};

struct Prescribed {
  std::string name;
  std::optional<GiNaC::ex> expression;  // nullopt: unspecified function of time (dot/ddot kept)
  SourceLocation where;
};

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

struct Frame {
  std::string name;
  std::string parent = "world";
  Vector3 translation{0, 0, 0};          // origin in the parent, parent components
  std::vector<RotationFactor> rotation;  // R_parent_child = product in order; empty = identity
  SourceLocation where;
};

struct Body {
  std::string name;
  std::string frame;
  GiNaC::ex mass;
  Vector3 com{0, 0, 0};   // in the frame
  GiNaC::matrix inertia;  // 3×3 about the centre of mass, frame axes
  SourceLocation where;
};

struct Particle {
  std::string name;
  std::string frame;
  GiNaC::ex mass;
  Vector3 position{0, 0, 0};
  SourceLocation where;
};

/// A point fixed in a frame.
struct PointRef {
  std::string frame;
  Vector3 point{0, 0, 0};
};

struct ForceLoad {
  Vector3 force;
  PointRef at;               // application point (frame of `on`)
  std::string in = "world";  // frame of the force components
};
struct TorqueLoad {
  Vector3 torque;
  std::string on;  // frame that receives the moment
  std::string in = "world";
};
struct SpringLoad {
  PointRef from, to;
  GiNaC::ex stiffness;
  GiNaC::ex rest_length = 0;
};
struct DamperLoad {
  PointRef from, to;
  GiNaC::ex coefficient;
};
struct GeneralizedLoad {
  std::size_t coordinate = 0;  // index into Model::coordinates
  GiNaC::ex value;
};
struct PotentialLoad {
  GiNaC::ex potential;
};

using LoadKind =
    std::variant<ForceLoad, TorqueLoad, SpringLoad, DamperLoad, GeneralizedLoad, PotentialLoad>;

struct Load {
  LoadKind kind;
  SourceLocation where;
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

/// A mass at a point: a body's centre of mass or a particle. Every translational term
/// (½ m v², ½ m a², m g, m a) is a sum over these.
struct MassPoint {
  GiNaC::ex mass;
  PointRef point;
};

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
  /// A carrier frame (seed 003) whose motion depends on t and prescribed functions only: the
  /// relative motion's inertial forces are reported separately (principles/relative_motion.hpp).
  std::optional<std::string> relative_to;
  SourceLocation relative_to_where;
  /// Flexible bodies meshed with finite elements, each on a floating frame (fem/).
  std::vector<FlexibleBody> flexible;

  std::size_t dof() const { return coordinates.size(); }
  /// q_j, dot(q_j), ddot(q_j), ... for coordinate j.
  GiNaC::symbol coordinate_symbol(std::size_t j, int order = 0) const;
  /// Index of a frame in `frames`, or -1 for world; nullopt if no such frame.
  std::optional<int> frame_index(const std::string& name) const;
  const Parameter* find_parameter(const std::string& name) const;
  /// The centres of mass of the bodies, then the particles.
  std::vector<MassPoint> mass_points() const;

  /// Numeric parameter values: defaults evaluated in order, `overrides` taking precedence (a
  /// shorthand for bind(*this, overrides).parameters, model/values.hpp, with parameters only).
  /// Throws ModelError naming an override that is not a parameter, or a non-numeric value.
  std::map<std::string, double> parameter_values(
      const std::map<std::string, double>& overrides = {}) const;
  /// The same values as a substitution parameter symbol -> number.
  GiNaC::exmap parameter_substitution(const std::map<std::string, double>& overrides = {}) const;
};

}  // namespace appell::model
