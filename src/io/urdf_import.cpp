#include "appell/io/urdf_import.hpp"

#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "appell/io/model_file.hpp"
#include "appell/io/output_file.hpp"

namespace appell::io {

namespace {

/// A scalar as YAML must write it to read back as the same text: plain when it is a number or a
/// name YAML takes as a string, double-quoted otherwise (expressions with commas, spaces ...).
std::string scalar(const std::string& text) {
  static const std::set<std::string> special = {
      "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
      "yes",  "Yes",  "YES",  "no",   "No",   "NO",   "on",    "On",    "ON",
      "off",  "Off",  "OFF",  "y",    "Y",    "n",    "N",     "~"};
  bool plain = !text.empty() && !special.count(text);
  for (std::size_t i = 0; i < text.size() && plain; ++i) {
    const char c = text[i];
    plain = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
            ((c == '-' || c == '+') && (i == 0 || text[i - 1] == 'e' || text[i - 1] == 'E'));
  }
  if (plain) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

std::string vector3(const std::array<std::string, 3>& v) {
  return "[" + scalar(v[0]) + ", " + scalar(v[1]) + ", " + scalar(v[2]) + "]";
}

bool zero(const std::array<std::string, 3>& v) { return v[0] == "0" && v[1] == "0" && v[2] == "0"; }

/// "joint J (TYPE), link L" as a comment naming where an item comes from.
std::string provenance(const UrdfOrigin& from, const std::string& what = "") {
  std::string text;
  if (!from.joint.empty()) text += "joint " + from.joint;
  if (!from.link.empty()) text += (text.empty() ? "" : ", ") + std::string("link ") + from.link;
  if (!what.empty()) text += (text.empty() ? "" : " ") + what;
  if (from.where.line > 0) text += " (line " + std::to_string(from.where.line) + ")";
  return text;
}

}  // namespace

std::string write_model_yaml(const UrdfModel& urdf) {
  std::ostringstream out;
  out << "# " << urdf.name << ": the URDF " << urdf.source
      << " as an appell model (appell import).\n"
         "# Frames are the links, placed as URDF places them: the joint's <origin> (xyz, then rpy\n"
         "# as rot_z(yaw)*rot_y(pitch)*rot_x(roll)), then the joint's motion; the root link is\n"
      << (urdf.speeds.empty()
              ? "# world."
              : "# free in space (--floating-base): a position and a unit quaternion.\n#")
      << " Each item names the URDF joint and link it comes from.\n";
  out << "name: " << scalar(urdf.name) << "\n";
  out << "description: " << scalar(urdf.description) << "\n";
  if (!urdf.parameters.empty()) {
    out << "parameters:  # the inertial parameters, defaults as in the URDF\n";
    std::string link;
    for (const auto& p : urdf.parameters) {
      if (p.from.link != link) out << "  # " << provenance(p.from, "<inertial>") << "\n";
      link = p.from.link;
      out << "  " << scalar(p.name) << ": " << scalar(p.value) << "\n";
    }
  }
  out << "coordinates:\n";
  for (const auto& c : urdf.coordinates) {
    out << "  # " << provenance(c.from, "(" + c.joint_type + ")");
    if (!c.mimic.empty()) out << "; <mimic> of " << c.mimic << ", read as independent";
    out << "\n";
    static const char* keys[] = {"lower", "upper", "velocity", "effort"};
    std::string limits;
    for (std::size_t k = 0; k < 4; ++k)
      if (c.limits[k])
        limits += (limits.empty() ? "" : ", ") + std::string(keys[k]) + ": " + scalar(*c.limits[k]);
    if (limits.empty() && c.initial == "0")
      out << "  - " << scalar(c.name) << "\n";
    else if (limits.empty())
      out << "  - {name: " << scalar(c.name) << ", initial: " << scalar(c.initial) << "}\n";
    else
      out << "  - {name: " << scalar(c.name) << ", limits: {" << limits << "}}\n";
  }
  if (!urdf.frames.empty()) out << "frames:\n";
  for (const auto& f : urdf.frames) {
    out << "  # " << provenance(f.from, f.role == "link" ? "" : "(" + f.role + ")") << "\n";
    out << "  " << scalar(f.name) << ": {parent: " << scalar(f.parent);
    if (!zero(f.translation)) out << ", translation: " << vector3(f.translation);
    if (!f.rotation.empty()) out << ", rotation: " << scalar(f.rotation);
    if (!f.speeds.empty()) {
      out << ", speeds: [";
      for (std::size_t k = 0; k < f.speeds.size(); ++k)
        out << (k ? ", " : "") << scalar(f.speeds[k]);
      out << "]";
    }
    out << "}\n";
  }
  if (!urdf.speeds.empty()) out << "speeds:  # the floating base's velocity (world axes)\n";
  for (const auto& u : urdf.speeds)
    out << "  - {name: " << scalar(u.name) << ", value: " << scalar(u.value) << "}\n";
  if (!urdf.bodies.empty()) out << "bodies:\n";
  for (const auto& b : urdf.bodies) {
    const auto& i = b.inertia;
    out << "  # " << provenance(b.from, "<inertial>") << "\n";
    out << "  " << scalar(b.name) << ": {frame: " << scalar(b.frame)
        << ", mass: " << scalar(b.mass);
    if (!zero(b.com)) out << ", com: " << vector3(b.com);
    out << ", inertia: [" << scalar(i[0]) << ", " << scalar(i[1]) << ", " << scalar(i[2]) << ", "
        << scalar(i[3]) << ", " << scalar(i[4]) << ", " << scalar(i[5]) << "]}\n";
  }
  out << "gravity: " << vector3(urdf.gravity) << "\n";
  if (!urdf.damping.empty()) out << "loads:  # the joints' viscous damping (--joint-damping)\n";
  for (const auto& d : urdf.damping) {
    out << "  # " << provenance(d.from, "<dynamics damping>") << "\n";
    out << "  - {generalized: {coordinate: " << scalar(d.coordinate)
        << ", value: " << scalar(d.value) << "}}\n";
  }
  if (!urdf.visuals.empty()) out << "visuals:  # for drawing only\n";
  for (const auto& v : urdf.visuals) {
    out << "  # " << provenance(v.from, "<visual>") << "\n";
    out << "  - {frame: " << scalar(v.frame);
    if (!zero(v.translation)) out << ", translation: " << vector3(v.translation);
    if (!v.rotation.empty()) out << ", rotation: " << scalar(v.rotation);
    switch (v.shape) {
      case model::Visual::Shape::Box:
        out << ", box: {size: " << vector3(v.size) << "}";
        break;
      case model::Visual::Shape::Cylinder:
        out << ", cylinder: {radius: " << scalar(v.size[0]) << ", length: " << scalar(v.size[1])
            << "}";
        break;
      case model::Visual::Shape::Sphere:
        out << ", sphere: {radius: " << scalar(v.size[0]) << "}";
        break;
      case model::Visual::Shape::Mesh:
        out << ", mesh: {file: " << scalar(v.mesh);
        if (v.size != std::array<std::string, 3>{"1", "1", "1"})
          out << ", scale: " << vector3(v.size);
        out << "}";
        break;
    }
    out << "}\n";
  }
  return out.str();
}

UrdfImport import_urdf(const std::string& path, const UrdfOptions& options) {
  const std::string text = read_model_text(path);
  // An appell model given to import is a mix-up of files, not malformed XML: say so.
  if (detect_model_format(text) == ModelFormat::Yaml)
    throw model::ModelError(model::SourceLocation{path, 1, 1},
                            "import reads a robot's URDF (XML), and this is not XML: an appell "
                            "model file (YAML) needs no import, the other commands read it as it "
                            "is",
                            path);
  UrdfModel urdf = translate_urdf(text, path, options);
  build_model(urdf);  // what is written must be a valid model: the builder's errors come first
  return UrdfImport{write_model_yaml(urdf), std::move(urdf.warnings)};
}

void write_model_file(const std::string& text, const std::string& path, const std::string& source) {
  const model::SourceLocation output{"output", 0, 0};
  std::error_code error;
  if (!source.empty() && std::filesystem::exists(path, error) &&
      std::filesystem::equivalent(path, source, error))
    throw model::ModelError(output, "the output would replace the file read", path);
  std::optional<OutputFile> file;
  try {
    file.emplace(path);
  } catch (const model::ModelError&) {
    throw model::ModelError(output, "cannot write the file", path);
  }
  file->stream() << text;
  file->close();  // a full disk: ComputationError naming the path
}

}  // namespace appell::io
