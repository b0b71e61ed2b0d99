// Reading a robot's URDF file (the ROS Unified Robot Description Format) into a model.
//
// urdfdom reads and checks the file (liburdfdom: the parser Pinocchio, RBDL and the ROS tools
// share); this reader translates the robot into the words of an appell model and hands it to
// model::ModelBuilder, the one validation of a model, with each item located at the URDF element
// it comes from. The translation (UrdfModel) is kept as a value: io::write_model_yaml
// (io/model_writer.hpp) writes the same model as an editable model file.
//
// What a URDF becomes (a fixed base, a kinematic tree):
//  - the root link is `world`; every other link is a frame named after it, placed in its parent
//    link's frame by its parent joint: the joint's <origin> (xyz, then rpy as URDF defines it,
//    fixed-axis roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll)), then the joint's motion —
//    `revolute` and `continuous` a rotation about <axis> by the joint's coordinate, `prismatic` a
//    translation along <axis> (through a frame JOINT_origin when the origin turns the axes),
//    `fixed` nothing (no coordinate);
//  - one coordinate per moving joint, named after the joint, in depth-first order from the root
//    (children in the order their joints are written);
//  - a link with <inertial> carries a body LINK_body: its mass, centre of mass at the inertial
//    <origin> xyz and inertia (URDF's ixx .. izz, the tensor's own entries) in axes turned by the
//    origin's rpy (through a frame LINK_inertia when they are turned); a link without one, or
//    with mass and inertia all zero (how descriptions mark a massless flange or sensor frame),
//    has no mass;
//  - <visual> boxes, cylinders, spheres and meshes are kept (model::Visual; a mesh file is only
//    named, never opened); <collision> is not read;
//  - <limit> values become model::CoordinateLimits (reported, not enforced); <mimic> joints are
//    independent coordinates (a warning names them); <dynamics damping> becomes a generalized
//    force −c·dot(q) only with UrdfOptions::joint_damping; friction is left out;
//  - gravity is (0, 0, −9.81) m/s² in the root's frame unless UrdfOptions::gravity says otherwise.
// Names: characters outside [A-Za-z0-9_] become _, a name that does not begin with a letter gets
// the prefix j_ (joints) or l_ (links), and a name that is reserved (t, pi, world, sin ...) or
// already taken gets _joint, _link, ... or a number appended; a name so made is at most 1024
// characters long (the longest key of the model file `appell import` writes). Numbers are kept as
// written: the shortest decimal of the double urdfdom read, and an angle within 1e-9 of a multiple
// of pi/12 written as that multiple (1.5707963267948966 and 1.57079632679 are pi/2,
// 0.5235987755982988 pi/6; with UrdfOptions::exact_angles only the double nearest to it); 1.5708
// stays 1.5708.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "appell/model/model.hpp"
#include "appell/model/source_location.hpp"

namespace appell::io {

/// How a URDF file becomes a model (the command line's --gravity, --joint-damping,
/// --symbolic-inertia, --floating-base, --exact-angles).
struct UrdfOptions {
  std::array<double, 3> gravity{0.0, 0.0, -9.81};  // m/s², the root link's components
  bool joint_damping = false;                      // <dynamics damping>: Q = −c·dot(q)
  /// Each link's mass, centre of mass and inertia as parameters m_LINK, cx_LINK, cy_LINK,
  /// cz_LINK, Ixx_LINK, Iyy_LINK, Izz_LINK, Ixy_LINK, Iyz_LINK, Ixz_LINK whose defaults are the
  /// URDF's values.
  bool symbolic_inertia = false;
  /// A floating base: the root link is a frame free in space, placed by coordinates ROOT_x,
  /// ROOT_y, ROOT_z and turned by a unit quaternion ROOT_e0 .. ROOT_e3 (initially 1, 0, 0, 0),
  /// with the speeds ROOT_vx, ROOT_vy, ROOT_vz (its origin's velocity, world axes) and ROOT_wx,
  /// ROOT_wy, ROOT_wz (its angular velocity, its own axes); the joints' speeds are their dot(q).
  /// Without it the root link is world (a fixed base). The body that floats is the root link
  /// with the links fixed to it; without mass, and with at most one joint moving the rest, its
  /// motion would not be determined (a singular mass matrix): translate_urdf refuses that.
  bool floating_base = false;
  /// Angles (<origin rpy>) as written. Without it an angle within 1e-9 of a multiple of pi/12
  /// is read as that multiple (1.57079632679 as pi/2), so that pi written to eleven digits leaves
  /// no rounding terms (4.9e-12*cos(q)) in the equations.
  bool exact_angles = false;
};

/// The URDF joint and link an item of the translation comes from ("" where none) and the place of
/// the element in the URDF file.
struct UrdfOrigin {
  std::string joint, link;
  model::SourceLocation where;
};

/// The URDF as the builder calls that make its model: names, and expressions as text in the
/// model language. Written by io::write_model_yaml as a model file, built by build_model.
struct UrdfModel {
  struct Parameter {
    std::string name, value;
    UrdfOrigin from;
  };
  struct Coordinate {
    std::string name;
    std::string joint_type;                            // revolute, continuous or prismatic
    std::array<std::optional<std::string>, 4> limits;  // lower, upper, velocity, effort
    std::string mimic;                                 // the joint it mimics in the URDF, or ""
    UrdfOrigin from;
    std::string initial = "0";  // q(0): 1 for a floating base's e0
  };
  struct Frame {
    std::string name, parent;
    std::array<std::string, 3> translation{"0", "0", "0"};
    std::string rotation;  // a rotation in the model language; "" the identity
    std::string role;      // what it is: "link", "joint origin", "inertial frame", "floating base"
    UrdfOrigin from;
    std::vector<std::string> speeds{};  // a rot_quat frame's angular velocity speeds
  };
  struct Body {
    std::string name, frame, mass;
    std::array<std::string, 3> com{"0", "0", "0"};
    std::array<std::string, 6> inertia;  // Ixx, Iyy, Izz, Ixy, Iyz, Ixz
    UrdfOrigin from;
  };
  struct Visual {
    std::string frame;
    std::array<std::string, 3> translation{"0", "0", "0"};
    std::string rotation;  // "" the identity
    model::Visual::Shape shape = model::Visual::Shape::Box;
    std::array<std::string, 3> size{"0", "0", "0"};  // as model::Visual::size
    std::string mesh;
    UrdfOrigin from;
  };
  struct Speed {
    std::string name, value;  // a declared speed (model `speeds:`)
    UrdfOrigin from;
  };
  struct Damping {
    std::string coordinate, value;  // a generalized force on the coordinate
    UrdfOrigin from;
  };

  std::string name;         // the <robot name>, made a valid name
  std::string description;  // "URDF robot NAME (FILE)"
  std::string source;       // the URDF file
  std::vector<Parameter> parameters;
  std::vector<Coordinate> coordinates;
  std::vector<Frame> frames;  // parents before children
  std::vector<Body> bodies;
  std::vector<Visual> visuals;
  std::array<std::string, 3> gravity{"0", "0", "-9.81"};
  std::vector<Damping> damping;
  std::vector<Speed> speeds;  // a floating base's linear velocity
  /// What the translation could not keep as the URDF says (mimic joints read as independent).
  std::vector<std::string> warnings;
};

/// Translates URDF text; `source_name` names the file in messages. Throws model::ModelError
/// "FILE:LINE:COLUMN: message (name)", exit 2 at the command line, for XML that is not well
/// formed or beyond the limits of io/xml_bounds.hpp (checked in time linear in the text before
/// any parser reads it: 64 levels, 250,000 nodes, 64 attributes on an element), an element that
/// a link, inertial, joint, visual or geometry has once written twice (at the second), a link or
/// joint whose name would make a name longer than 1024 characters, a document that is not a
/// <robot>, a link or joint without a name or named twice, a joint naming a link that does not
/// exist, a link that is the child of two joints, two root links, a cycle, an unknown joint
/// type, a `floating` or `planar` joint (a fixed base and one-coordinate joints only), a zero
/// <axis>, a non-positive mass, an inertia with a negative
/// moment, and whatever else urdfdom rejects (its message, located at the element it names when
/// it names one), and a floating base (UrdfOptions::floating_base) without mass that at most
/// one joint leaves (at the root link, naming the fix). A dummy link (a zero mass, or an inertia no
/// rigid body has) fixed to a link with a physical body is lumped into that body, with a warning;
/// build_model applies the model's inertia rules (planar inertias) to the rest.
UrdfModel translate_urdf(const std::string& xml, const std::string& source_name,
                         const UrdfOptions& options = {});

/// The model of a translation, built by model::ModelBuilder (Model::source = the URDF file;
/// errors located in the URDF).
std::shared_ptr<const model::Model> build_model(const UrdfModel& urdf);

/// translate_urdf of the file at `path`, then build_model. Throws model::ModelError at `path` if
/// it cannot be read, else as translate_urdf and the builder do.
std::shared_ptr<const model::Model> read_urdf_file(const std::string& path,
                                                   const UrdfOptions& options = {});

}  // namespace appell::io
