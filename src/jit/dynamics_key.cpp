#include "appell/jit/dynamics_key.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <filesystem>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "appell/codegen/cpp_generator.hpp"
#include "appell/principles/recursive_dynamics.hpp"
#include "appell/sym/canonical_text.hpp"

#ifndef APPELL_VERSION
#error "APPELL_VERSION is defined by CMakeLists.txt for this file"
#endif

namespace appell::jit {

namespace {

// What is written, with the marks that keep two different contents apart: every name and
// every expression's text is length-prefixed ("5:dot(u)"), every list says how long it is, and
// an expression's text marks each of its names and numbers with its kind and length
// (sym::TextStyle::Marked); so no two different sequences of writes give the same text.
class Content {
 public:
  void mark(const char* text) { out_ += text; }
  void name(const std::string& text) {
    out_ += std::to_string(text.size());
    out_ += ':';
    out_ += text;
  }
  void count(std::size_t n) {
    out_ += '#';
    out_ += std::to_string(n);
    out_ += ';';
  }
  // An expression by sym::canonical_text, marked (every name and number with its kind and
  // length): the same text in every run whatever order and signs GiNaC keeps its operands in,
  // and numbers exact.
  void expression(const GiNaC::ex& e) {
    mark("e");
    name(sym::canonical_text(e, sym::TextStyle::Marked));
  }
  void matrix(const GiNaC::matrix& m) {
    mark("m");
    count(m.rows());
    count(m.cols());
    for (unsigned i = 0; i < m.rows(); ++i)
      for (unsigned j = 0; j < m.cols(); ++j) expression(m(i, j));
  }
  void vector(const model::Vector3& v) {
    mark("v");
    for (const auto& e : v) expression(e);
  }
  void point(const model::PointRef& p) {
    mark("p");
    name(p.frame);
    vector(p.point);
  }

  const std::string& text() const { return out_; }

 private:
  std::string out_;
};

// The build of appell that generates the code: its version, and the file this function is in
// (the library, or the program it is linked into) by path, size and modification time. A new
// build of appell may generate other code for the same model, and the version alone does not
// change between two builds of a work tree; so a rebuilt appell compiles its code anew (its
// earlier objects stay in the cache until it is deleted). Found once per process.
const std::string& generator_identity() {
  static const std::string identity = [] {
    std::string text = "appell " APPELL_VERSION;
    Dl_info info{};
    std::string file;
    if (::dladdr(reinterpret_cast<void*>(&generator_identity), &info) != 0 &&
        info.dli_fname != nullptr)
      file = info.dli_fname;
    // The main program may be named as it was started (no folder): /proc tells where it is.
    if (file.find('/') == std::string::npos) file = "/proc/self/exe";
    std::error_code error;
    const std::filesystem::path resolved = std::filesystem::canonical(file, error);
    struct stat status {};
    if (!error && ::stat(resolved.c_str(), &status) == 0)
      text += "\nbuild " + resolved.string() + " " + std::to_string(status.st_size) + " " +
              std::to_string(status.st_mtim.tv_sec) + "." + std::to_string(status.st_mtim.tv_nsec);
    else
      text += "\nbuild unknown";  // then the version alone: as good as the source's key was not
    return text;
  }();
  return identity;
}

void write_rotation(Content& c, const std::vector<model::RotationFactor>& rotation) {
  c.count(rotation.size());
  for (const auto& factor : rotation) {
    if (factor.kind == model::RotationFactor::Kind::Axis) {
      c.mark("axis");
      c.vector(factor.axis);
      c.expression(factor.angle);
    } else {
      c.mark("matrix");
      c.matrix(factor.matrix);
    }
  }
}

void write_load(Content& c, const model::Load& load) {
  c.mark("load");
  c.name(load.name);
  std::visit(
      [&](const auto& l) {
        using T = std::decay_t<decltype(l)>;
        if constexpr (std::is_same_v<T, model::ForceLoad>) {
          c.mark("force");
          c.vector(l.force);
          c.point(l.at);
          c.name(l.in);
        } else if constexpr (std::is_same_v<T, model::TorqueLoad>) {
          c.mark("torque");
          c.vector(l.torque);
          c.name(l.on);
          c.name(l.in);
        } else if constexpr (std::is_same_v<T, model::SpringLoad>) {
          c.mark("spring");
          c.point(l.from);
          c.point(l.to);
          c.expression(l.stiffness);
          c.expression(l.rest_length);
        } else if constexpr (std::is_same_v<T, model::DamperLoad>) {
          c.mark("damper");
          c.point(l.from);
          c.point(l.to);
          c.expression(l.coefficient);
        } else if constexpr (std::is_same_v<T, model::GeneralizedLoad>) {
          c.mark("generalized");
          c.count(l.coordinate);
          c.expression(l.value);
        } else {
          static_assert(std::is_same_v<T, model::PotentialLoad>, "a load kind left out of the key");
          c.mark("potential");
          c.expression(l.potential);
        }
      },
      load.kind);
}

}  // namespace

std::string dynamics_content(const model::Model& m, const model::Values& values) {
  const std::string reason = codegen::recursions_do_not_write(m);
  if (!reason.empty())
    throw std::invalid_argument("jit::dynamics_content: the recursions do not cover " + reason);
  Content c;
  // Version 4 of this layout (2: the constraints, 3: the speeds, 4: expressions by
  // sym::canonical_text); its number changes with the layout.
  c.mark("appell jit dynamics content 4\n");
  c.name(generator_identity());
  c.mark("\nparameters");
  c.count(m.parameters.size());
  for (const auto& p : m.parameters) {
    c.name(p.name);
    c.expression(p.default_value);
  }
  c.mark("\ncoordinates");
  c.count(m.coordinates.size());
  for (const auto& q : m.coordinates) c.name(q.name);
  c.mark("\nprescribed");
  c.count(m.prescribed.size());
  for (const auto& p : m.prescribed) {
    c.name(p.name);
    if (p.expression) {
      c.mark("=");
      c.expression(*p.expression);
    } else {
      c.mark("?");
    }
  }
  c.mark("\ninputs");
  c.count(m.inputs.size());
  for (const auto& in : m.inputs) c.name(in.name);
  c.mark("\nframes");
  c.count(m.frames.size());
  for (const auto& f : m.frames) {
    c.name(f.name);
    c.name(f.parent);
    c.vector(f.translation);
    write_rotation(c, f.rotation);
  }
  c.mark("\nbodies");
  c.count(m.bodies.size());
  for (const auto& b : m.bodies) {
    c.name(b.name);
    c.name(b.frame);
    c.expression(b.mass);
    c.vector(b.com);
    c.matrix(b.inertia);
  }
  c.mark("\nparticles");
  c.count(m.particles.size());
  for (const auto& p : m.particles) {
    c.name(p.name);
    c.name(p.frame);
    c.expression(p.mass);
    c.vector(p.position);
  }
  c.mark("\ngravity");
  if (m.gravity)
    c.vector(*m.gravity);
  else
    c.mark("-");
  c.mark("\nloads");
  c.count(m.loads.size());
  for (const auto& load : m.loads) write_load(c, load);
  // Their rows and levels are code (constraints(), constraint_manifold()); their names are not.
  // As written: GiNaC keeps Bricard's closures with −(a − b)·c in one run and (b − a)·c in the
  // next, which canonical_text writes alike.
  c.mark("\nconstraints");
  c.count(m.constraints.size());
  for (const auto& constraint : m.constraints) {
    c.mark(constraint.kind == model::Constraint::Kind::Holonomic ? "h" : "g");
    c.expression(constraint.expression);
  }
  // Generalized speeds: the code is written in them (each one's definition, and q̇ = W u).
  c.mark("\nspeeds");
  c.count(m.speeds.size());
  for (const auto& speed : m.speeds) {
    c.name(speed.name);
    switch (speed.kind) {
      case model::Speed::Kind::Declared:
        c.mark("d");
        c.expression(speed.value);
        break;
      case model::Speed::Kind::Frame:
        c.mark("f");
        c.name(speed.frame);
        c.count(speed.axis);
        break;
      case model::Speed::Kind::Coordinate:
        c.mark("c");
        c.count(speed.coordinate);
        break;
    }
  }
  if (m.has_speeds()) c.matrix(m.speed_kinematics);
  // Readable forms only, but cheap to say.
  c.mark("\npositive");
  c.count(m.positive.size());
  for (const auto& s : m.positive) c.expression(s);
  // Driven functions are generated as code (std::map: by name).
  c.mark("\ndriven");
  c.count(values.driven().size());
  for (const auto& [name, expression] : values.driven()) {
    c.name(name);
    c.expression(expression);
  }
  return c.text();
}

std::string dynamics_key(const model::Model& model, const model::Values& values,
                         const num::NativeCompilerOptions& compiler) {
  return num::native_content_key(dynamics_content(model, values), compiler);
}

}  // namespace appell::jit
