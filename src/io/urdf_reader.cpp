#include "appell/io/urdf_reader.hpp"

#include <console_bridge/console.h>
#include <tinyxml.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <numeric>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "../model/inertia_check.hpp"
#include "appell/io/model_file.hpp"
#include "appell/model/builder.hpp"
#include "appell/model/expression_parser.hpp"
#include "utf8.hpp"
#include "xml_bounds.hpp"

namespace appell::io {

namespace {

using model::ModelError;
using model::SourceLocation;

// ---------------------------------------------------------------------------------------------
// Numbers and names as the model language writes them

/// The shortest decimal that reads back as the same double (what the builder keeps exactly),
/// without an exponent when that takes 12 characters or fewer (0.0001, not 1e-04).
std::string number_text(double value) {
  if (value == 0.0) return "0";  // also -0
  char buffer[400];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  if (result.ec == std::errc() && result.ptr - buffer <= 12) return std::string(buffer, result.ptr);
  result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

/// An angle: a multiple k·pi/12 (pi/6, pi/4, pi/2 ...) when `value` is within 1e-9 of it (the
/// UR5's 1.57079632679 and Kinova's 3.14159265359: pi written to eleven digits, whose
/// sines and cosines would leave terms like 4.9e-12*cos(q) that are only the rounding), else the
/// number. With `exact` (--exact-angles) only the double nearest to the multiple is (xacro's
/// ${pi/2} is 1.5707963267948966), any other value stays as written.
std::string angle_text(double value, bool exact) {
  for (int k = -24; k <= 24; ++k) {
    if (k == 0) continue;
    const double multiple = k * std::numbers::pi / 12.0;
    const double tolerance = exact ? 4.0 * std::abs(multiple) * 1e-16 : 1e-9;
    if (std::abs(value - multiple) > tolerance) continue;
    const int g = std::gcd(std::abs(k), 12);
    const int numerator = k / g, denominator = 12 / g;
    std::string text = numerator == 1    ? "pi"
                       : numerator == -1 ? "-pi"
                                         : std::to_string(numerator) + "*pi";
    if (denominator != 1) text += "/" + std::to_string(denominator);
    return text;
  }
  return number_text(value);
}

/// c + a·q as text ("0.1 + q", "-q", "0.2 - 0.5*q", "0").
std::string affine_text(double c, double a, const std::string& q) {
  std::string term;
  if (a == 1.0)
    term = q;
  else if (a == -1.0)
    term = "-" + q;
  else if (a != 0.0)
    term = number_text(a) + "*" + q;
  if (c == 0.0) return term.empty() ? "0" : term;
  if (term.empty()) return number_text(c);
  if (term[0] == '-') return number_text(c) + " - " + term.substr(1);
  return number_text(c) + " + " + term;
}

/// The longest name appell makes of a URDF name. Frames, bodies and parameters are keys of the
/// model file `appell import` writes, and yaml-cpp reads no plain key longer than 1024 characters
/// (YAML's bound on an implicit key): a longer one would be written but not read back.
constexpr std::size_t kLongestName = 1024;

/// Valid, unreserved, unique names made from URDF names.
class Names {
 public:
  /// The URDF link or joint a name is made from.
  struct Owner {
    const char* kind;  // "link" or "joint"
    const std::string& name;
    SourceLocation where;
  };

  /// `raw` with characters outside [A-Za-z0-9_] replaced by _, `prefix` before it unless it
  /// begins with a letter, `suffix` (then _2, _3 ..) after it if reserved or taken. Throws
  /// model::ModelError at the owner's element, naming it, when the name would be longer than
  /// kLongestName.
  std::string unique(const std::string& raw, const std::string& prefix, const std::string& suffix,
                     const Owner& owner) {
    const std::string base = sanitized(raw, prefix);
    std::string name = base;
    if (!free(name)) {
      name = base + suffix;
      // Numbers below the last one given are all taken: counting from 2 each time would make n
      // links of one name (a-1, a.1, a_1 ...) cost n^2 / 2 look-ups.
      int& k = next_[name];
      k = std::max(k, 2);
      while (!free(name)) name = base + suffix + "_" + std::to_string(k++);
    }
    if (name.size() > kLongestName)
      throw ModelError(owner.where,
                       "the " + std::string(owner.kind) + "'s name makes the name '" +
                           detail::printable(name) + "' of " + std::to_string(name.size()) +
                           " characters, and a name in a model file has at most " +
                           std::to_string(kLongestName) +
                           " (the longest key YAML reads): give the " + owner.kind +
                           " a shorter name",
                       detail::printable(owner.name));
    taken_.insert(name);
    return name;
  }

  static std::string sanitized(const std::string& raw, const std::string& prefix) {
    std::string s = raw;
    for (char& c : s)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) s = prefix + s;
    return s;
  }

 private:
  bool free(const std::string& name) const {
    return model::is_valid_name(name) && !model::is_reserved_name(name) && !taken_.count(name);
  }
  std::set<std::string> taken_;
  std::map<std::string, int> next_;
};

// ---------------------------------------------------------------------------------------------
// urdfdom's messages: console_bridge prints them to stderr; while it reads, they are kept here
// instead, so that a failure is reported once, located, and success is quiet.

class UrdfdomMessages : public console_bridge::OutputHandler {
 public:
  UrdfdomMessages() : lock_(mutex()) { console_bridge::useOutputHandler(this); }
  ~UrdfdomMessages() override { console_bridge::restorePreviousOutputHandler(); }
  UrdfdomMessages(const UrdfdomMessages&) = delete;
  UrdfdomMessages& operator=(const UrdfdomMessages&) = delete;

  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
  }

  std::vector<std::string> errors;

 private:
  // console_bridge's handler is one for the process: one reader at a time uses it.
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  std::lock_guard<std::mutex> lock_;
};

// ---------------------------------------------------------------------------------------------
// The reader

constexpr const char* kSupportedJoints = "revolute, continuous, prismatic or fixed";

class UrdfReader {
 public:
  UrdfReader(const std::string& xml, const std::string& source, const UrdfOptions& options)
      : xml_(xml), source_(source), options_(options) {}

  UrdfModel translate() {
    parse_xml();
    index_elements();
    check_tree();
    check_numbers();
    parse_with_urdfdom();
    UrdfModel out;
    out.source = source_;
    out.name = Names::sanitized(urdf_->getName().empty() ? "robot" : urdf_->getName(), "robot_");
    out.description = "URDF robot " + urdf_->getName() + " (" + source_ + ")";
    walk_tree();
    if (options_.floating_base) check_floating_base();
    plan_lumping(out);
    name_items();
    for (const auto& link : order_) translate_link(out, link);
    // Said here, at the <robot>, rather than by the model builder's unlocated "no coordinate".
    if (out.coordinates.empty())
      fail(at(robot_),
           "robot '" + urdf_->getName() +
               "' has no joint that moves (every joint is fixed, or there is none), so it has no "
               "coordinate to write equations for; give it a revolute, continuous or prismatic "
               "joint, or read it with a floating base (--floating-base)",
           urdf_->getName());
    for (int k = 0; k < 3; ++k)
      out.gravity[static_cast<std::size_t>(k)] =
          number_text(options_.gravity[static_cast<std::size_t>(k)]);
    out.parameters = std::move(parameters_);
    std::vector<std::string> mimics;
    for (const auto& c : out.coordinates)
      if (!c.mimic.empty()) mimics.push_back(c.from.joint + " (mimics " + c.mimic + ")");
    if (!mimics.empty()) {
      std::string list;
      for (const auto& m : mimics) list += (list.empty() ? "" : ", ") + m;
      out.warnings.push_back(
          source_ +
          ": <mimic> joints read as independent coordinates (add a constraint to "
          "couple them): " +
          list);
    }
    return out;
  }

 private:
  [[noreturn]] void fail(const SourceLocation& where, const std::string& message,
                         const std::string& offending = "") const {
    throw ModelError(where, message, offending);
  }

  SourceLocation at(const TiXmlNode* node) const {
    if (!node) return SourceLocation{source_, 0, 0};
    return SourceLocation{source_, node->Row(), node->Column()};
  }

  Names::Owner link_owner(const std::string& link) const {
    return {"link", link, at(links_.at(link))};
  }
  Names::Owner joint_owner(const std::string& joint) const {
    return {"joint", joint, at(joints_.at(joint))};
  }

  // -- the XML: well formed, a <robot>, and where each link and joint is ----------------------

  void parse_xml() {
    // Read as UTF-8 (whatever the declaration says): the robot's name reaches the description
    // and JSON output, which must be text.
    if (const std::size_t bad = detail::invalid_utf8_at(xml_); bad != std::string::npos) {
      const std::string_view before(xml_.data(), bad);
      const std::size_t newline = before.rfind('\n');
      const std::size_t column = newline == std::string_view::npos ? bad : bad - newline - 1;
      const auto line = 1 + std::count(before.begin(), before.end(), '\n');
      fail(SourceLocation{source_, int(line), int(column) + 1},
           "not UTF-8 text: a URDF file is read as UTF-8", detail::printable(xml_.substr(bad, 1)));
    }
    // Bounded (depth, nodes, attributes) and well formed before TinyXML, which recurses per
    // level, and before urdfdom, which parses the same text with it again.
    detail::check_xml_text(xml_, source_, "URDF file");
    document_.Parse(xml_.c_str(), nullptr, TIXML_ENCODING_UTF8);
    if (document_.Error()) {
      SourceLocation where{source_, document_.ErrorRow(), document_.ErrorCol()};
      if (where.line <= 0) where = SourceLocation{source_, 1, 1};
      fail(where, std::string("malformed XML: ") + document_.ErrorDesc());
    }
    robot_ = document_.RootElement();
    if (!robot_) fail(SourceLocation{source_, 1, 1}, "not a URDF file: no <robot> element");
    if (std::string(robot_->Value()) != "robot")
      fail(at(robot_), "not a URDF file: the document's element is not <robot>", robot_->Value());
  }

  static std::string attribute(const TiXmlElement* e, const char* name) {
    const char* value = e ? e->Attribute(name) : nullptr;
    return value ? value : "";
  }

  void index_elements() {
    for (const TiXmlElement* e = robot_->FirstChildElement("link"); e;
         e = e->NextSiblingElement("link")) {
      const std::string name = attribute(e, "name");
      if (name.empty()) fail(at(e), "a <link> needs a name", "link");
      if (auto earlier = links_.find(name); earlier != links_.end())
        fail(at(e),
             "link defined twice (first at line " + std::to_string(earlier->second->Row()) + ")",
             name);
      links_[name] = e;
      link_order_.push_back(name);
      check_link_elements(e, name);
    }
    if (link_order_.empty()) fail(at(robot_), "a URDF robot needs at least one <link>");
    for (const TiXmlElement* e = robot_->FirstChildElement("joint"); e;
         e = e->NextSiblingElement("joint")) {
      const std::string name = attribute(e, "name");
      if (name.empty()) fail(at(e), "a <joint> needs a name", "joint");
      if (auto earlier = joints_.find(name); earlier != joints_.end())
        fail(at(e),
             "joint defined twice (first at line " + std::to_string(earlier->second->Row()) + ")",
             name);
      joints_[name] = e;
      joint_order_.push_back(name);
      check_once(e, {"origin", "parent", "child", "axis", "limit", "dynamics", "mimic"}, "joint",
                 name);
      const std::string type = attribute(e, "type");
      if (type == "floating" || type == "planar")
        fail(at(e),
             "joint type '" + type + "' is not supported: appell reads a fixed-base tree of " +
                 kSupportedJoints +
                 " joints (a floating base or a planar joint can be written in a model file with "
                 "coordinates of its own)",
             name);
      if (type != "revolute" && type != "continuous" && type != "prismatic" && type != "fixed")
        fail(at(e),
             type.empty() ? std::string("a joint needs a type (") + kSupportedJoints + ")"
                          : "unknown joint type '" + type + "' (" + kSupportedJoints + ")",
             name);
      for (const char* end : {"parent", "child"}) {
        const TiXmlElement* link = e->FirstChildElement(end);
        const std::string link_name = attribute(link, "link");
        if (link_name.empty())
          fail(link ? at(link) : at(e), std::string("joint has no <") + end + " link=\"..\"/>",
               name);
        if (!links_.count(link_name))
          fail(at(link),
               "joint '" + name + "' names the " + end + " link '" + link_name +
                   "', which is not defined",
               link_name);
      }
    }
  }

  // -- elements a link or joint has once ---------------------------------------------------------

  /// Each of `children` at most once in `element` (of the link or joint `owner`): urdfdom, and
  /// appell after it, would read the first and silently leave out a second one.
  void check_once(const TiXmlElement* element, std::initializer_list<const char*> children,
                  const char* kind, const std::string& owner) const {
    for (const char* child : children) {
      const TiXmlElement* first = element->FirstChildElement(child);
      const TiXmlElement* second = first ? first->NextSiblingElement(child) : nullptr;
      if (!second) continue;
      const std::string parent = element->Value();
      fail(at(second),
           std::string(kind) + " '" + owner + "' has a second <" + child + ">" +
               (parent == kind ? "" : " in its <" + parent + ">") + " (the first at line " +
               std::to_string(first->Row()) + ", column " + std::to_string(first->Column()) +
               "): it may have only one",
           owner);
    }
  }

  /// A link's <inertial> (with its <origin>, <mass> and <inertia>) once; each <visual> (a link
  /// may have several) with one <origin> and one <geometry> of one shape.
  void check_link_elements(const TiXmlElement* link, const std::string& name) const {
    check_once(link, {"inertial"}, "link", name);
    if (const TiXmlElement* inertial = link->FirstChildElement("inertial"))
      check_once(inertial, {"origin", "mass", "inertia"}, "link", name);
    for (const TiXmlElement* visual = link->FirstChildElement("visual"); visual;
         visual = visual->NextSiblingElement("visual")) {
      check_once(visual, {"origin", "geometry"}, "link", name);
      const TiXmlElement* geometry = visual->FirstChildElement("geometry");
      const TiXmlElement* shape = geometry ? geometry->FirstChildElement() : nullptr;
      if (const TiXmlElement* second = shape ? shape->NextSiblingElement() : nullptr)
        fail(at(second),
             "link '" + name + "' has a <geometry> with a second shape <" + second->Value() +
                 "> (the first, <" + shape->Value() + ">, at line " + std::to_string(shape->Row()) +
                 ", column " + std::to_string(shape->Column()) + "): a <geometry> has one",
             name);
    }
  }

  /// One tree: each link the child of one joint at most, one root, no cycle.
  void check_tree() {
    for (const auto& joint : joint_order_) {
      const TiXmlElement* e = joints_.at(joint);
      const std::string parent = attribute(e->FirstChildElement("parent"), "link");
      const std::string child = attribute(e->FirstChildElement("child"), "link");
      if (auto earlier = parent_joint_.find(child); earlier != parent_joint_.end())
        fail(at(e->FirstChildElement("child")),
             "link '" + child + "' is the child of two joints, '" + earlier->second + "' and '" +
                 joint + "': a URDF robot is a tree",
             child);
      parent_joint_[child] = joint;
      parent_link_[child] = parent;
      children_[parent].push_back(joint);
    }
    std::vector<std::string> roots;
    for (const auto& link : link_order_)
      if (!parent_joint_.count(link)) roots.push_back(link);
    if (roots.size() > 1)
      fail(at(links_.at(roots[1])),
           "two root links, '" + roots[0] + "' and '" + roots[1] +
               "': a URDF robot is one tree (join them by a joint)",
           roots[1]);
    if (!roots.empty()) root_ = roots.front();
    // Links not below the root (or all, without a root) hang on a cycle: find it by parents.
    std::set<std::string> reached;
    if (!root_.empty()) {
      std::vector<std::string> stack{root_};
      while (!stack.empty()) {
        const std::string link = stack.back();
        stack.pop_back();
        reached.insert(link);
        if (auto c = children_.find(link); c != children_.end())
          for (const auto& joint : c->second)
            stack.push_back(attribute(joints_.at(joint)->FirstChildElement("child"), "link"));
      }
    }
    for (const auto& link : link_order_) {
      if (reached.count(link)) continue;
      // The links up from this one, and where each is on the way (found by the map, so that a
      // cycle of n links costs n log n, not n^2).
      std::vector<std::string> path;
      std::map<std::string, std::size_t> on_path;
      std::string current = link;
      while (!on_path.count(current)) {
        on_path[current] = path.size();
        path.push_back(current);
        current = parent_link_.at(current);
      }
      const auto start = path.begin() + static_cast<std::ptrdiff_t>(on_path.at(current));
      std::string cycle;
      for (auto it = start; it != path.end(); ++it) cycle += (cycle.empty() ? "" : ", ") + *it;
      const std::string joint = parent_joint_.at(current);
      fail(at(joints_.at(joint)),
           "joint '" + joint + "' closes a cycle of links (" + cycle + "): a URDF robot is a tree",
           joint);
    }
  }

  // -- numbers ---------------------------------------------------------------------------------

  /// Every number appell reads from the file is finite and fits a double as written: urdfdom
  /// reads "1e-400" as 0 and some of "nan", "inf", "1e400" as what they say, which would become
  /// a massless link, a NaN inertia or an infinite offset. Checked on the text, before urdfdom,
  /// so that the message names the element, the attribute and the link or joint.
  void check_numbers() const {
    for (const auto& name : link_order_) {
      const TiXmlElement* link = links_.at(name);
      if (const TiXmlElement* inertial = link->FirstChildElement("inertial")) {
        check_numbers(inertial->FirstChildElement("origin"), {"xyz", "rpy"}, "link", name);
        check_numbers(inertial->FirstChildElement("mass"), {"value"}, "link", name);
        check_numbers(inertial->FirstChildElement("inertia"),
                      {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"}, "link", name);
      }
      for (const TiXmlElement* visual = link->FirstChildElement("visual"); visual;
           visual = visual->NextSiblingElement("visual")) {
        check_numbers(visual->FirstChildElement("origin"), {"xyz", "rpy"}, "link", name);
        if (const TiXmlElement* geometry = visual->FirstChildElement("geometry"))
          for (const TiXmlElement* shape = geometry->FirstChildElement(); shape;
               shape = shape->NextSiblingElement())
            check_numbers(shape, {"size", "radius", "length", "scale"}, "link", name);
      }
    }
    for (const auto& name : joint_order_) {
      const TiXmlElement* joint = joints_.at(name);
      check_numbers(joint->FirstChildElement("origin"), {"xyz", "rpy"}, "joint", name);
      check_numbers(joint->FirstChildElement("axis"), {"xyz"}, "joint", name);
      check_numbers(joint->FirstChildElement("limit"), {"lower", "upper", "effort", "velocity"},
                    "joint", name);
      check_numbers(joint->FirstChildElement("dynamics"), {"damping", "friction"}, "joint", name);
    }
  }

  void check_numbers(const TiXmlElement* element, std::initializer_list<const char*> attributes,
                     const char* owner, const std::string& name) const {
    if (!element) return;
    for (const char* attribute : attributes) {
      const char* text = element->Attribute(attribute);
      if (!text) continue;
      std::istringstream words{std::string(text)};
      for (std::string word; words >> word;) {
        double value = 0.0;
        // from_chars reads no leading '+', which urdfdom's stream does.
        const char* first = word.data() + (word.size() > 1 && word[0] == '+' ? 1 : 0);
        const auto [end, ec] = std::from_chars(first, word.data() + word.size(), value);
        const bool number = ec != std::errc::invalid_argument && end == word.data() + word.size();
        // 0 only when written so: a mantissa with a digit other than 0 read as 0 underflowed.
        const bool zero_written = word.find_first_not_of("+-.0") >= word.find_first_of("eE");
        if (number && ec == std::errc() && std::isfinite(value) &&
            (value == 0.0 ? zero_written : std::abs(value) >= std::numeric_limits<double>::min()))
          continue;
        const std::string field = "<" + std::string(element->Value()) + " " + attribute + "> of " +
                                  owner + " '" + name + "'";
        fail(at(element),
             !number ? field + " is not a number: '" + word + "'"
             : ec == std::errc() && !std::isfinite(value)
                 ? field + " must be finite, not '" + word + "'"
                 : field + " is out of range for a double (it would become 0 or inf): '" + word +
                       "'",
             name);
      }
    }
  }

  // -- urdfdom ---------------------------------------------------------------------------------

  void parse_with_urdfdom() {
    UrdfdomMessages messages;
    std::string thrown;
    try {
      // After a byte order mark TinyXML reads the text as UTF-8, as appell's own reading does
      // (TIXML_ENCODING_UTF8). Without one, and without an encoding declared, it writes a
      // character reference as one byte (&#x85; as \x85, &#x2028; as '('): urdfdom's names
      // would not be appell's, and a name urdfdom's model has under another spelling is not
      // found in it.
      urdf_ = urdf::parseURDF("\xEF\xBB\xBF" + xml_);
    } catch (const std::exception& e) {
      thrown = e.what();
    }
    // urdfdom may log an error and still return a robot, with what it could not read left at 0
    // (an <inertial> whose mass is "inf" comes back all zero: a massless link). An error is an
    // error either way.
    if (urdf_ && messages.errors.empty()) return;
    std::string message = thrown;
    for (const auto& m : messages.errors) message += (message.empty() ? "" : "; ") + m;
    if (message.empty()) message = "the file is not a valid URDF";
    // urdfdom names the element it stopped at in brackets: "... for Link [arm]".
    SourceLocation where = at(robot_);
    std::string offending;
    for (std::size_t open = message.find('['); open != std::string::npos;
         open = message.find('[', open + 1)) {
      const std::size_t close = message.find(']', open);
      if (close == std::string::npos) break;
      const std::string name = message.substr(open + 1, close - open - 1);
      const auto link = links_.find(name);
      const auto joint = joints_.find(name);
      if (link == links_.end() && joint == joints_.end()) continue;
      where = at(link != links_.end() ? link->second : joint->second);
      offending = name;
      break;
    }
    fail(where, "urdfdom cannot read the robot: " + message, offending);
  }

  // -- the tree in appell's order: depth first from the root, children as written --------------

  void walk_tree() {
    std::vector<std::string> stack{root_};
    while (!stack.empty()) {
      const std::string link = stack.back();
      stack.pop_back();
      order_.push_back(link);
      if (auto c = children_.find(link); c != children_.end())
        for (auto joint = c->second.rbegin(); joint != c->second.rend(); ++joint)
          stack.push_back(urdf_->getJoint(*joint)->child_link_name);
    }
  }

  const urdf::Joint* parent_joint(const std::string& link) const {
    const auto j = parent_joint_.find(link);
    return j == parent_joint_.end() ? nullptr : urdf_->getJoint(j->second).get();
  }

  static bool moves(const urdf::Joint& joint) { return joint.type != urdf::Joint::FIXED; }

  // -- a floating base that can move ---------------------------------------------------------

  /// The floating body is the root link with every link fixed to it (through fixed joints). When
  /// none of them has mass and at most one joint moves the rest of the robot, the base's motion
  /// along that joint's axis and the joint's rate move the same masses: the mass matrix is
  /// singular in every state (two_link.urdf's massless `base` with its one shoulder). Refused
  /// here, naming the fix, rather than by a simulation that stops at its first step. With two
  /// or more joints leaving a massless base (a pelvis between two legs) the base is in general
  /// determined, and read.
  void check_floating_base() const {
    std::vector<std::string> body{root_}, moving;
    for (std::size_t k = 0; k < body.size(); ++k) {
      if (auto c = children_.find(body[k]); c != children_.end())
        for (const auto& joint : c->second) {
          const urdf::Joint& j = *urdf_->getJoint(joint);
          if (moves(j))
            moving.push_back(joint);
          else
            body.push_back(j.child_link_name);
        }
    }
    for (const auto& link : body)
      if (has_mass(*urdf_->getLink(link)) && urdf_->getLink(link)->inertial->mass > 0.0) return;
    if (moving.size() > 1) return;
    const std::string carried = body.size() > 1 ? " (nor any link fixed to it)" : "";
    const std::string why =
        moving.empty()
            ? "and nothing else moves: the robot has no mass to float"
            : "and only joint '" + moving.front() + "' moves the rest of the robot: the base " +
                  "moving about that joint's axis and the joint's rate move the same masses, so "
                  "the motion is not determined (the mass matrix is singular)";
    fail(at(links_.at(root_)),
         "the floating base (--floating-base) is link '" + root_ + "', which has no mass" +
             carried + ", " + why + "; give link '" + root_ +
             "' an <inertial> (the body that floats), or read the robot with a fixed base "
             "(without --floating-base)",
         root_);
  }

  // -- dummy links: lumped into the link they are fixed to ----------------------------------

  static Eigen::Matrix3d tensor_of(const urdf::Inertial& in) {
    Eigen::Matrix3d tensor;
    tensor << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    return tensor;
  }

  static Eigen::Isometry3d transform(const urdf::Pose& pose) {
    Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
    t.linear() =
        Eigen::Quaterniond(pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z)
            .normalized()
            .toRotationMatrix();
    t.translation() = Eigen::Vector3d(pose.position.x, pose.position.y, pose.position.z);
    return t;
  }

  /// A mass in a link's frame: its centre and its inertia about it, in the link's axes.
  struct Lumped {
    double mass = 0;
    Eigen::Vector3d com = Eigen::Vector3d::Zero();
    Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
  };

  static Lumped lumped(const urdf::Inertial& in, const Eigen::Isometry3d& link_in_target) {
    const Eigen::Isometry3d t = link_in_target * transform(in.origin);
    return {in.mass, t.translation(), t.linear() * tensor_of(in) * t.linear().transpose()};
  }

  /// Whether a link's inertial is a real rigid body's: a positive mass, a physical inertia.
  static bool physical(const urdf::Inertial& in) {
    return in.mass > 0.0 && std::isfinite(in.mass) && tensor_of(in).allFinite() &&
           model::detail::inertia_fault(tensor_of(in)) == model::detail::InertiaFault::None;
  }

  /// Robot descriptions carry dummy links (ANYmal's, all six inertia entries 1e-6; a zero mass
  /// with an inertia) whose inertia no rigid body has. Fixed to a link with a physical body,
  /// directly or through other fixed joints, they move with it, so their mass is added to its
  /// body (as Pinocchio and RBDL merge fixed joints) and the translation says so; anywhere else
  /// the builder decides (a dummy that never turns is accepted). A negative mass or a moment
  /// clearly below zero is refused as written.
  void plan_lumping(UrdfModel& out) {
    // Each link's nearest ancestor with a physical body through fixed joints only, and its pose
    // there, from its parent's (links come parents first): walking up from every link would make
    // a chain of n fixed dummies cost n^2 / 2 steps (2,000 of them: 3 s). The pose of a link
    // fixed to its anchor by one or two joints is the same product as that walk's.
    std::map<std::string, std::pair<std::string, Eigen::Isometry3d>> anchor;
    for (const auto& link_name : order_) {
      const urdf::Joint* joint = parent_joint(link_name);
      if (!joint || moves(*joint)) continue;
      const std::string& parent = parent_link_.at(link_name);
      const Eigen::Isometry3d placed = transform(joint->parent_to_joint_origin_transform);
      const urdf::Link& parent_link = *urdf_->getLink(parent);
      if (has_mass(parent_link) && physical(*parent_link.inertial))
        anchor.emplace(link_name, std::pair{parent, placed});
      else if (const auto up = anchor.find(parent); up != anchor.end())
        anchor.emplace(link_name, std::pair{up->second.first, up->second.second * placed});
    }
    for (const auto& link_name : order_) {
      const urdf::Link& link = *urdf_->getLink(link_name);
      if (!has_mass(link) || physical(*link.inertial)) continue;
      const urdf::Inertial& in = *link.inertial;
      const Eigen::Matrix3d tensor = tensor_of(in);
      if (!(in.mass >= 0.0) || !std::isfinite(in.mass) || !tensor.allFinite() ||
          model::detail::inertia_fault(tensor) == model::detail::InertiaFault::NotSemidefinite)
        continue;  // refused by translate_inertial
      const auto fixed_to = anchor.find(link_name);
      if (fixed_to == anchor.end()) continue;
      const auto& [target, pose] = fixed_to->second;  // link_name in `target`
      lumped_into_[link_name] = target;
      lumped_[target].push_back(lumped(in, pose));
      std::ostringstream mass;
      mass << in.mass;
      out.warnings.push_back(source_ + ": link '" + link_name + "' (mass " + mass.str() +
                             ", principal moments " + model::detail::principal_moments(tensor) +
                             ": no rigid body's) is fixed to link '" + target +
                             "': its mass is added to that link's body");
    }
  }

  /// `in` with the masses lumped into its link added: centre of mass and inertia in the link's
  /// axes (the inertial's own rotation applied).
  urdf::Inertial with_lumped(const urdf::Inertial& in, const std::vector<Lumped>& extra) const {
    std::vector<Lumped> parts{lumped(in, Eigen::Isometry3d::Identity())};
    parts.insert(parts.end(), extra.begin(), extra.end());
    double mass = 0;
    Eigen::Vector3d com = Eigen::Vector3d::Zero();
    for (const auto& p : parts) {
      mass += p.mass;
      com += p.mass * p.com;
    }
    com /= mass;
    Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
    for (const auto& p : parts) {
      const Eigen::Vector3d d = p.com - com;  // parallel axes
      inertia +=
          p.inertia + p.mass * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
    }
    urdf::Inertial result = in;
    result.mass = mass;
    result.origin.position = urdf::Vector3(com.x(), com.y(), com.z());
    result.origin.rotation = urdf::Rotation(0, 0, 0, 1);
    result.ixx = inertia(0, 0);
    result.iyy = inertia(1, 1);
    result.izz = inertia(2, 2);
    result.ixy = inertia(0, 1);
    result.iyz = inertia(1, 2);
    result.ixz = inertia(0, 2);
    return result;
  }

  /// A link with <inertial>, unless its mass and inertia are all zero: robot descriptions mark
  /// frames without mass (a tool flange, a sensor) so, and every URDF tool reads them as
  /// massless. Any other zero or negative mass is an error (translate_inertial).
  static bool has_mass(const urdf::Link& link) {
    if (!link.inertial) return false;
    const urdf::Inertial& in = *link.inertial;
    return !(in.mass == 0.0 && in.ixx == 0.0 && in.iyy == 0.0 && in.izz == 0.0 && in.ixy == 0.0 &&
             in.iyz == 0.0 && in.ixz == 0.0);
  }

  /// Coordinates first (they are named after the joints), then link frames, bodies, the frames
  /// between, and parameters.
  void name_items() {
    for (const auto& link : order_)
      if (const auto* joint = parent_joint(link); joint && moves(*joint))
        coordinate_[joint->name] =
            names_.unique(joint->name, "j_", "_joint", joint_owner(joint->name));
    if (options_.floating_base) {
      // The base's coordinates and speeds come first, named after the root link.
      const std::string base = Names::sanitized(root_, "l_");
      for (const char* suffix : {"_x", "_y", "_z", "_e0", "_e1", "_e2", "_e3"})
        base_coordinates_.push_back(names_.unique(base + suffix, "l_", "", link_owner(root_)));
      for (const char* suffix : {"_vx", "_vy", "_vz", "_wx", "_wy", "_wz"})
        base_speeds_.push_back(names_.unique(base + suffix, "l_", "", link_owner(root_)));
    }
    frame_[root_] =
        options_.floating_base ? names_.unique(root_, "l_", "_link", link_owner(root_)) : "world";
    for (const auto& link : order_)
      if (link != root_) frame_[link] = names_.unique(link, "l_", "_link", link_owner(link));
    for (const auto& link : order_)
      if (has_mass(*urdf_->getLink(link)) && !lumped_into_.count(link))
        body_[link] = names_.unique(link + "_body", "l_", "", link_owner(link));
  }

  // -- values of the elements, from urdfdom; rotations as written (urdfdom keeps quaternions) ---

  /// rpy of an <origin> as written, or from urdfdom's quaternion if that cannot be read.
  std::array<double, 3> rpy(const TiXmlElement* origin, const urdf::Rotation& fallback) const {
    std::array<double, 3> angles{0, 0, 0};
    const std::string text = attribute(origin, "rpy");
    if (text.empty()) {
      fallback.getRPY(angles[0], angles[1], angles[2]);
      return angles;
    }
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    if (in >> angles[0] >> angles[1] >> angles[2]) return angles;
    fallback.getRPY(angles[0], angles[1], angles[2]);
    return angles;
  }

  /// Rz(yaw)·Ry(pitch)·Rx(roll) as rot_z(..)*rot_y(..)*rot_x(..), factors of angle 0 left out.
  std::string rpy_text(const std::array<double, 3>& a) const {
    std::string text;
    const std::array<std::pair<const char*, double>, 3> factors{
        {{"rot_z", a[2]}, {"rot_y", a[1]}, {"rot_x", a[0]}}};
    for (const auto& [f, angle] : factors)
      if (angle != 0.0)
        text += (text.empty() ? "" : "*") + std::string(f) + "(" +
                angle_text(angle, options_.exact_angles) + ")";
    return text;
  }

  static bool turned(const std::array<double, 3>& a) {
    return a[0] != 0.0 || a[1] != 0.0 || a[2] != 0.0;
  }

  /// The rotation by q about `axis` (a unit vector, or normalised by the builder).
  static std::string axis_rotation(const urdf::Vector3& axis, const std::string& q) {
    const std::array<double, 3> a{axis.x, axis.y, axis.z};
    const char* names[] = {"rot_x", "rot_y", "rot_z"};
    for (int k = 0; k < 3; ++k) {
      const auto i = static_cast<std::size_t>(k);
      const bool others_zero = a[(i + 1) % 3] == 0.0 && a[(i + 2) % 3] == 0.0;
      if (others_zero && a[i] == 1.0) return std::string(names[k]) + "(" + q + ")";
      if (others_zero && a[i] == -1.0) return std::string(names[k]) + "(-" + q + ")";
    }
    return "rot(" + number_text(a[0]) + ", " + number_text(a[1]) + ", " + number_text(a[2]) + ", " +
           q + ")";
  }

  static std::string joint_type(const urdf::Joint& joint) {
    switch (joint.type) {
      case urdf::Joint::REVOLUTE:
        return "revolute";
      case urdf::Joint::CONTINUOUS:
        return "continuous";
      case urdf::Joint::PRISMATIC:
        return "prismatic";
      default:
        return "fixed";
    }
  }

  void translate_link(UrdfModel& out, const std::string& link_name) {
    const urdf::Link& link = *urdf_->getLink(link_name);
    const TiXmlElement* link_element = links_.at(link_name);
    if (const urdf::Joint* joint = parent_joint(link_name)) translate_joint(out, *joint, link_name);
    if (link_name == root_ && options_.floating_base) translate_floating_base(out, link_element);
    const std::string frame = frame_.at(link_name);
    if (has_mass(link) && !lumped_into_.count(link_name))
      translate_inertial(out, link, link_element, frame);
    const TiXmlElement* visual = link_element->FirstChildElement("visual");
    for (const auto& v : link.visual_array) {
      if (v && v->geometry) translate_visual(out, *v, visual, link_name, frame);
      if (visual) visual = visual->NextSiblingElement("visual");
    }
  }

  /// The root link free in space: its origin at (x, y, z), turned by the quaternion e (world
  /// axes), with the speeds of its origin's velocity and of its angular velocity.
  void translate_floating_base(UrdfModel& out, const TiXmlElement* link_element) {
    const UrdfOrigin from{"", root_, at(link_element)};
    const auto& q = base_coordinates_;
    for (std::size_t k = 0; k < 7; ++k) {
      UrdfModel::Coordinate c;
      c.name = q[k];
      c.joint_type = "floating base";
      c.from = from;
      c.initial = k == 3 ? "1" : "0";
      out.coordinates.push_back(c);
    }
    UrdfModel::Frame frame;
    frame.name = frame_.at(root_);
    frame.parent = "world";
    frame.translation = {q[0], q[1], q[2]};
    frame.rotation = "rot_quat(" + q[3] + ", " + q[4] + ", " + q[5] + ", " + q[6] + ")";
    frame.speeds = {base_speeds_[3], base_speeds_[4], base_speeds_[5]};
    frame.role = "floating base";
    frame.from = from;
    out.frames.push_back(frame);
    for (std::size_t k = 0; k < 3; ++k)
      out.speeds.push_back({base_speeds_[k], "dot(" + q[k] + ")", from});
  }

  void translate_joint(UrdfModel& out, const urdf::Joint& joint, const std::string& child) {
    const TiXmlElement* element = joints_.at(joint.name);
    const UrdfOrigin from{joint.name, child, at(element)};
    const std::string parent_frame = frame_.at(parent_link_.at(child));
    const urdf::Pose& origin = joint.parent_to_joint_origin_transform;
    const auto angles = rpy(element->FirstChildElement("origin"), origin.rotation);
    const std::array<double, 3> xyz{origin.position.x, origin.position.y, origin.position.z};

    UrdfModel::Frame frame;
    frame.name = frame_.at(child);
    frame.parent = parent_frame;
    frame.role = "link";
    frame.from = from;
    for (std::size_t k = 0; k < 3; ++k) frame.translation[k] = number_text(xyz[k]);
    frame.rotation = rpy_text(angles);
    if (!moves(joint)) {
      out.frames.push_back(frame);
      return;
    }

    const std::string q = coordinate_.at(joint.name);
    const TiXmlElement* axis_element = element->FirstChildElement("axis");
    urdf::Vector3 axis = joint.axis;
    const double norm = std::sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
    if (!(norm > 0.0) || !std::isfinite(norm))
      fail(axis_element ? at(axis_element) : at(element),
           "the joint's <axis> is zero: a " + joint_type(joint) + " joint needs a direction",
           joint.name);
    if (joint.type == urdf::Joint::PRISMATIC) {
      if (norm != 1.0) axis = urdf::Vector3(axis.x / norm, axis.y / norm, axis.z / norm);
      const std::array<double, 3> a{axis.x, axis.y, axis.z};
      if (turned(angles)) {
        // The axis is in the joint frame's components: a frame for the origin, then the slide.
        UrdfModel::Frame joint_origin = frame;
        joint_origin.name =
            names_.unique(joint.name + "_origin", "j_", "", joint_owner(joint.name));
        joint_origin.role = "joint origin";
        out.frames.push_back(joint_origin);
        frame.parent = joint_origin.name;
        frame.rotation.clear();
        for (std::size_t k = 0; k < 3; ++k) frame.translation[k] = affine_text(0.0, a[k], q);
      } else {
        for (std::size_t k = 0; k < 3; ++k) frame.translation[k] = affine_text(xyz[k], a[k], q);
      }
    } else {
      const std::string turn = axis_rotation(axis, q);
      frame.rotation = frame.rotation.empty() ? turn : frame.rotation + "*" + turn;
    }
    out.frames.push_back(frame);

    UrdfModel::Coordinate c;
    c.name = q;
    c.joint_type = joint_type(joint);
    c.from = from;
    if (joint.mimic) c.mimic = joint.mimic->joint_name;
    if (const TiXmlElement* limit = element->FirstChildElement("limit"); limit && joint.limits) {
      const bool bounded = joint.type != urdf::Joint::CONTINUOUS;
      if (bounded && limit->Attribute("lower")) c.limits[0] = number_text(joint.limits->lower);
      if (bounded && limit->Attribute("upper")) c.limits[1] = number_text(joint.limits->upper);
      if (limit->Attribute("velocity")) c.limits[2] = number_text(joint.limits->velocity);
      if (limit->Attribute("effort")) c.limits[3] = number_text(joint.limits->effort);
    }
    out.coordinates.push_back(c);
    if (options_.joint_damping && joint.dynamics && joint.dynamics->damping != 0.0) {
      const TiXmlElement* dynamics = element->FirstChildElement("dynamics");
      out.damping.push_back({q, number_text(-joint.dynamics->damping) + "*dot(" + q + ")",
                             UrdfOrigin{joint.name, child, at(dynamics ? dynamics : element)}});
    }
  }

  void translate_inertial(UrdfModel& out, const urdf::Link& link, const TiXmlElement* link_element,
                          const std::string& frame) {
    const auto extra = lumped_.find(link.name);
    const bool merged = extra != lumped_.end();
    const urdf::Inertial in = merged ? with_lumped(*link.inertial, extra->second) : *link.inertial;
    const TiXmlElement* inertial = link_element->FirstChildElement("inertial");
    const TiXmlElement* mass = inertial ? inertial->FirstChildElement("mass") : nullptr;
    const TiXmlElement* inertia = inertial ? inertial->FirstChildElement("inertia") : nullptr;
    const UrdfOrigin from{"", link.name, at(inertial ? inertial : link_element)};
    if (!(in.mass > 0.0) || !std::isfinite(in.mass))
      fail(at(mass ? mass : inertial),
           "mass must be positive (" + number_text(in.mass) +
               "): a link without mass has no <inertial> (or one of all zeros), and a dummy "
               "link is read when fixed to a link with a mass",
           link.name);
    check_inertia(in, at(inertia ? inertia : inertial), link.name);

    const auto angles = merged ? std::array<double, 3>{0, 0, 0}
                               : rpy(inertial ? inertial->FirstChildElement("origin") : nullptr,
                                     in.origin.rotation);
    const std::array<double, 3> com{in.origin.position.x, in.origin.position.y,
                                    in.origin.position.z};
    const std::array<double, 6> entries{in.ixx, in.iyy, in.izz, in.ixy, in.iyz, in.ixz};

    UrdfModel::Body body;
    body.name = body_.at(link.name);
    body.frame = frame;
    body.from = from;
    std::array<std::string, 3> com_text;
    for (std::size_t k = 0; k < 3; ++k) com_text[k] = number_text(com[k]);
    body.mass = number_text(in.mass);
    for (std::size_t k = 0; k < 6; ++k) body.inertia[k] = number_text(entries[k]);
    if (options_.symbolic_inertia) {
      const std::string link_name = Names::sanitized(link.name, "l_");
      auto parameter = [&](const std::string& prefix, const std::string& value) {
        const std::string name = names_.unique(prefix + link_name, "p_", "", link_owner(link.name));
        parameters_.push_back({name, value, from});
        return name;
      };
      body.mass = parameter("m_", body.mass);
      const char* axes[] = {"cx_", "cy_", "cz_"};
      for (std::size_t k = 0; k < 3; ++k) com_text[k] = parameter(axes[k], com_text[k]);
      const char* inertia_names[] = {"Ixx_", "Iyy_", "Izz_", "Ixy_", "Iyz_", "Ixz_"};
      for (std::size_t k = 0; k < 6; ++k)
        body.inertia[k] = parameter(inertia_names[k], body.inertia[k]);
    }
    if (turned(angles)) {
      // The inertia is given in axes turned by the origin's rpy: a frame for them keeps the
      // URDF's numbers as written.
      UrdfModel::Frame axes;
      axes.name = names_.unique(link.name + "_inertia", "l_", "", link_owner(link.name));
      axes.parent = frame;
      axes.translation = com_text;
      axes.rotation = rpy_text(angles);
      axes.role = "inertial frame";
      axes.from = from;
      out.frames.push_back(axes);
      body.frame = axes.name;
    } else {
      body.com = com_text;
    }
    out.bodies.push_back(body);
  }

  /// Finite and positive semi-definite (the shared rule and tolerance,
  /// model::detail::inertia_fault); the triangle inequality is the builder's to decide, which
  /// accepts an inertia that breaks it on a link that never turns (a dummy fixed to the world)
  /// or turns about its largest moment's axis alone (a planar [0, 0, Izz]).
  void check_inertia(const urdf::Inertial& in, const SourceLocation& where,
                     const std::string& link) const {
    const Eigen::Matrix3d tensor = tensor_of(in);
    if (!tensor.allFinite()) fail(where, "inertia is not finite", link);
    if (model::detail::inertia_fault(tensor) == model::detail::InertiaFault::NotSemidefinite)
      fail(where, *model::detail::inertia_defect(tensor), link);
  }

  void translate_visual(UrdfModel& out, const urdf::Visual& v, const TiXmlElement* element,
                        const std::string& link, const std::string& frame) const {
    UrdfModel::Visual visual;
    visual.frame = frame;
    visual.from = UrdfOrigin{"", link, at(element ? element : links_.at(link))};
    visual.translation = {number_text(v.origin.position.x), number_text(v.origin.position.y),
                          number_text(v.origin.position.z)};
    visual.rotation =
        rpy_text(rpy(element ? element->FirstChildElement("origin") : nullptr, v.origin.rotation));
    const urdf::Geometry& g = *v.geometry;
    switch (g.type) {
      case urdf::Geometry::BOX: {
        const auto& box = static_cast<const urdf::Box&>(g);
        visual.shape = model::Visual::Shape::Box;
        visual.size = {number_text(box.dim.x), number_text(box.dim.y), number_text(box.dim.z)};
        break;
      }
      case urdf::Geometry::CYLINDER: {
        const auto& cylinder = static_cast<const urdf::Cylinder&>(g);
        visual.shape = model::Visual::Shape::Cylinder;
        visual.size = {number_text(cylinder.radius), number_text(cylinder.length), "0"};
        break;
      }
      case urdf::Geometry::SPHERE:
        visual.shape = model::Visual::Shape::Sphere;
        visual.size = {number_text(static_cast<const urdf::Sphere&>(g).radius), "0", "0"};
        break;
      case urdf::Geometry::MESH: {
        const auto& mesh = static_cast<const urdf::Mesh&>(g);
        visual.shape = model::Visual::Shape::Mesh;
        visual.mesh = mesh.filename;
        visual.size = {number_text(mesh.scale.x), number_text(mesh.scale.y),
                       number_text(mesh.scale.z)};
        break;
      }
    }
    // A box, cylinder or sphere of no size draws nothing: left out rather than refused.
    const bool empty = visual.shape != model::Visual::Shape::Mesh &&
                       (visual.size[0] == "0" ||
                        (visual.shape == model::Visual::Shape::Box &&
                         (visual.size[1] == "0" || visual.size[2] == "0")) ||
                        (visual.shape == model::Visual::Shape::Cylinder && visual.size[1] == "0"));
    if (!empty && (visual.shape != model::Visual::Shape::Mesh || !visual.mesh.empty()))
      out.visuals.push_back(visual);
  }

  const std::string& xml_;
  std::string source_;
  UrdfOptions options_;

  TiXmlDocument document_;
  const TiXmlElement* robot_ = nullptr;
  std::map<std::string, const TiXmlElement*> links_, joints_;
  std::vector<std::string> link_order_, joint_order_;
  std::map<std::string, std::string> parent_joint_, parent_link_;  // child link -> ..
  std::map<std::string, std::vector<std::string>> children_;       // link -> joints, as written
  std::string root_;
  std::vector<std::string> base_coordinates_, base_speeds_;  // with a floating base

  urdf::ModelInterfaceSharedPtr urdf_;
  std::vector<std::string> order_;  // links, depth first
  Names names_;
  std::map<std::string, std::string> coordinate_, frame_, body_;  // URDF name -> appell name
  std::map<std::string, std::string> lumped_into_;     // dummy link -> the link it is lumped into
  std::map<std::string, std::vector<Lumped>> lumped_;  // link -> the dummies' masses, its frame
  std::vector<UrdfModel::Parameter> parameters_;
};

model::Expr located(const std::string& text, const UrdfOrigin& from) {
  return model::Expr(text).at(model::Origin{from.where, {}});
}

model::Expr3 located3(const std::array<std::string, 3>& texts, const UrdfOrigin& from) {
  return {located(texts[0], from), located(texts[1], from), located(texts[2], from)};
}

model::Rotation rotation(const std::string& text, const UrdfOrigin& from) {
  if (text.empty()) return model::Rotation();
  return model::Rotation(text).at(model::Origin{from.where, {}});
}

}  // namespace

UrdfModel translate_urdf(const std::string& xml, const std::string& source_name,
                         const UrdfOptions& options) {
  return UrdfReader(xml, source_name, options).translate();
}

std::shared_ptr<const model::Model> build_model(const UrdfModel& urdf) {
  model::ModelBuilder b(urdf.name, urdf.source);
  b.description(urdf.description);
  for (const auto& p : urdf.parameters)
    b.parameter(model::Name(p.name, p.from.where), located(p.value, p.from));
  for (const auto& c : urdf.coordinates) {
    b.coordinate(model::Name(c.name, c.from.where), located(c.initial, c.from));
    if (std::none_of(c.limits.begin(), c.limits.end(), [](const auto& l) { return l.has_value(); }))
      continue;
    model::LimitsSpec limits;
    std::array<std::optional<model::Expr>*, 4> into{&limits.lower, &limits.upper, &limits.velocity,
                                                    &limits.effort};
    for (std::size_t k = 0; k < 4; ++k)
      if (c.limits[k]) *into[k] = located(*c.limits[k], c.from);
    b.limits(model::Name(c.name, c.from.where), limits, c.from.where);
  }
  for (const auto& f : urdf.frames) {
    std::vector<model::Name> speeds;
    for (const auto& w : f.speeds) speeds.emplace_back(w, f.from.where);
    b.frame(model::Name(f.name, f.from.where),
            model::FrameSpec{model::Name(f.parent, f.from.where), located3(f.translation, f.from),
                             rotation(f.rotation, f.from), speeds});
  }
  for (const auto& u : urdf.speeds)
    b.speed(model::Name(u.name, u.from.where), located(u.value, u.from), u.from.where);
  for (const auto& body : urdf.bodies) {
    const auto& i = body.inertia;
    // The builder's refusals of a body (an inertia that turns off its planar axis) name the URDF
    // link, as the reader's own do.
    try {
      b.body(model::Name(body.name, body.from.where),
             model::BodySpec{
                 model::Name(body.frame, body.from.where), located(body.mass, body.from),
                 located3(body.com, body.from),
                 model::Inertia::entries(located(i[0], body.from), located(i[1], body.from),
                                         located(i[2], body.from), located(i[3], body.from),
                                         located(i[4], body.from), located(i[5], body.from))
                     .at(model::Origin{body.from.where, {}})});
    } catch (const model::ModelError& e) {
      if (e.offending() != body.name || body.from.link.empty()) throw;
      std::string message = e.what();  // "WHERE: message (body)"
      const std::string prefix = e.where().str() + ": ", suffix = " (" + body.name + ")";
      if (message.starts_with(prefix)) message.erase(0, prefix.size());
      if (message.ends_with(suffix)) message.erase(message.size() - suffix.size());
      throw model::ModelError(e.where(), message, body.from.link);
    }
  }
  b.gravity(model::Expr3{model::Expr(urdf.gravity[0]), model::Expr(urdf.gravity[1]),
                         model::Expr(urdf.gravity[2])});
  for (const auto& d : urdf.damping)
    b.generalized_force(model::Name(d.coordinate, d.from.where), located(d.value, d.from),
                        d.from.where);
  for (const auto& v : urdf.visuals) {
    model::VisualSpec spec;
    spec.frame = model::Name(v.frame, v.from.where);
    spec.translation = located3(v.translation, v.from);
    spec.rotation = rotation(v.rotation, v.from);
    spec.shape = v.shape;
    spec.size = located3(v.size, v.from);
    spec.mesh = v.mesh;
    b.visual(spec, v.from.where);
  }
  return b.build();
}

std::shared_ptr<const model::Model> read_urdf_file(const std::string& path,
                                                   const UrdfOptions& options) {
  return build_model(translate_urdf(read_model_text(path), path, options));
}

}  // namespace appell::io
