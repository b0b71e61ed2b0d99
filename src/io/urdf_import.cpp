#include "appell/io/urdf_import.hpp"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

#include "appell/io/model_file.hpp"
#include "appell/io/output_file.hpp"

namespace appell::io {

namespace {

/// The length of the character at `i` of `text` (UTF-8, as the URDF reader checked) when it is
/// one that a YAML file cannot hold as it is, 0 otherwise: the C0 controls (line breaks and tabs
/// among them), DEL, the C1 controls (NEL among them), the line and paragraph separators
/// U+2028, U+2029 and the byte order mark U+FEFF.
std::size_t special_character(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) {
    return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u;
  };
  const unsigned c = byte(i);
  if (c < 0x20 || c == 0x7F) return 1;
  if (c == 0xC2 && byte(i + 1) >= 0x80 && byte(i + 1) <= 0x9F) return 2;
  if (c == 0xE2 && byte(i + 1) == 0x80 && (byte(i + 2) == 0xA8 || byte(i + 2) == 0xA9)) return 3;
  if (c == 0xEF && byte(i + 1) == 0xBB && byte(i + 2) == 0xBF) return 3;
  return 0;
}

/// The special character of `length` bytes at `i` as a YAML escape of its code point: \xHH
/// (U+0000 .. U+00FF) or \uHHHH.
std::string escaped_character(const std::string& text, std::size_t i, std::size_t length) {
  unsigned code = static_cast<unsigned char>(text[i]);
  if (length == 2) code = ((code & 0x1Fu) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3Fu);
  if (length == 3)
    code = ((code & 0x0Fu) << 12) | ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, code <= 0xFF ? "\\x%02X" : "\\u%04X", code);
  return buffer;
}

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
  // Double-quoted, every character that YAML would not read back as itself escaped: a line
  // break would be folded into a space, and a control character is not text.
  std::string quoted = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += static_cast<char>(c);
    } else if (const std::size_t length = special_character(text, i)) {
      quoted += escaped_character(text, i, length);
      i += length - 1;
    } else {
      quoted += static_cast<char>(c);
    }
  }
  return quoted + "\"";
}

/// `text` on one comment line: the URDF's names are written as they are in the comments, but a
/// line break in one (&#10; in an attribute) would end the comment and make the rest of the name
/// YAML (a key, a list ...), and a control character is not text.
std::string comment_text(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (const std::size_t length = special_character(text, i)) {
      out += escaped_character(text, i, length);
      i += length - 1;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string vector3(const std::array<std::string, 3>& v) {
  return "[" + scalar(v[0]) + ", " + scalar(v[1]) + ", " + scalar(v[2]) + "]";
}

bool zero(const std::array<std::string, 3>& v) { return v[0] == "0" && v[1] == "0" && v[2] == "0"; }

/// "joint J (TYPE), link L" as a comment naming where an item comes from.
std::string provenance(const UrdfOrigin& from, const std::string& what = "") {
  std::string text;
  if (!from.joint.empty()) text += "joint " + comment_text(from.joint);
  if (!from.link.empty())
    text += (text.empty() ? "" : ", ") + std::string("link ") + comment_text(from.link);
  if (!what.empty()) text += (text.empty() ? "" : " ") + what;
  if (from.where.line > 0) text += " (line " + std::to_string(from.where.line) + ")";
  return text;
}

}  // namespace

std::string write_model_yaml(const UrdfModel& urdf) {
  std::ostringstream out;
  out << "# " << urdf.name << ": the URDF " << comment_text(urdf.source)
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
    if (!c.mimic.empty())
      out << "; <mimic> of " << comment_text(c.mimic) << ", read as independent";
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
