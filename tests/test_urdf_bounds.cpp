// Issue 39: a URDF is data handed over by anyone, read in bounded time and memory like a model
// file (test_hostile_inputs.cpp). Nesting deep enough to overflow TinyXML's stack, nesting and
// attributes that cost it quadratic time, more nodes than the budget, an element written twice
// where URDF has one, XML that TinyXML reads another way than it looks, and a name too long for
// the model file `appell import` writes: each is exit 2 at FILE:LINE:COLUMN naming the element,
// at once. What is within the limits reads as before: a real robot imports byte for byte as it
// did, and names with any characters import to a model file that reads back.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "appell/io/model_file.hpp"
#include "appell/io/model_reader.hpp"
#include "appell/io/urdf_import.hpp"
#include "appell/io/urdf_reader.hpp"
#include "support/run_cli.hpp"
#include "support/scratch_dir.hpp"

namespace {

using namespace appell;
using test_support::CliRun;

/// The command line, killed after 30 s: a hang or a quadratic read fails instead of stalling.
CliRun run(const std::string& args) { return test_support::run_cli(args, 30); }

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kInertial =
    "<inertial><mass value=\"1\"/>"
    "<inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>";

/// A one-joint robot: line 1 <robot>, line 2 the base link, line 3 the link `arm` as `arm_link`
/// writes it (its name may be changed by `arm_name`), then the joint.
std::string robot(const std::string& arm_link, const std::string& arm_name = "arm") {
  return "<robot name=\"r\">\n<link name=\"base\"/>\n" + arm_link +
         "\n<joint name=\"j\" type=\"continuous\"><parent link=\"base\"/><child link=\"" +
         arm_name + "\"/></joint>\n</robot>\n";
}

/// A robot whose link `arm` holds `levels` nested <a> elements, one a line from line 4: the
/// <robot> and <link> are two levels, so the 63rd <a> (line 66) is the 65th level.
std::string nested(int levels) {
  std::string xml =
      "<robot name=\"deep\">\n<link name=\"base\"/>\n<link name=\"arm\">" + kInertial + "\n";
  for (int k = 0; k < levels; ++k) xml += "<a>\n";
  for (int k = 0; k < levels; ++k) xml += "</a>";
  return xml +
         "</link>\n<joint name=\"j\" type=\"continuous\"><parent link=\"base\"/>"
         "<child link=\"arm\"/></joint>\n</robot>\n";
}

/// The ModelError translate_urdf gives for `xml` (a failure if it gives none).
model::ModelError urdf_error(const std::string& xml) {
  try {
    io::build_model(io::translate_urdf(xml, "robot.urdf"));
  } catch (const model::ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted:\n" << xml.substr(0, 400);
  return model::ModelError({}, "");
}

/// translate_urdf's error for `xml`, timed: how long the refusal took, in seconds (reported,
/// never asserted).
double refusal_seconds(const std::string& xml, model::ModelError& error) {
  const auto start = std::chrono::steady_clock::now();
  error = urdf_error(xml);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class UrdfBounds : public test_support::ScratchDirTest {};

// ----- nesting ---------------------------------------------------------------------------------

TEST_F(UrdfBounds, FiftyThousandNestedElementsAreRefusedWithTheirPlaceNotACrash) {
  const std::string xml = nested(50'000);
  EXPECT_GT(xml.size(), 340'000u);  // the 350 KB file that overflowed TinyXML's stack
  const std::string path = write("deep.urdf", xml);
  for (const char* command : {"eval", "import"}) {
    const auto r = run(std::string(command) + " " + path);
    EXPECT_EQ(r.code, 2) << command << ": " << r.out.substr(0, 300);
    EXPECT_TRUE(contains(r.out, path + ":66:1: the URDF file nests deeper than 64 levels of "
                                       "elements (a)"))
        << r.out.substr(0, 300);
  }
}

TEST_F(UrdfBounds, SixtyFourLevelsReadAndSixtyFiveAreRefused) {
  // 62 <a> in <link> in <robot>: 64 levels, which a URDF may have (it ignores unknown elements).
  const auto within = run("eval " + write("64.urdf", nested(62)));
  EXPECT_EQ(within.code, 0) << within.out;
  const auto e = urdf_error(nested(63));
  EXPECT_EQ(e.where().file, "robot.urdf");
  EXPECT_EQ(e.where().line, 66);
  EXPECT_EQ(e.where().column, 1);
  EXPECT_EQ(e.offending(), "a");
}

TEST_F(UrdfBounds, TwentyThousandLevelsAreRefusedWithoutReadingThem) {
  // 20,000 levels once took TinyXML 8 to 15 s (each element looks up its document through every
  // ancestor); refused now before TinyXML sees them.
  model::ModelError e({}, "");
  const double seconds = refusal_seconds(nested(20'000), e);
  std::cout << "[ measured ] 20,000 nested levels refused in " << seconds << " s\n";
  EXPECT_EQ(e.where().line, 66);
  EXPECT_TRUE(contains(e.what(), "nests deeper than 64 levels")) << e.what();
  const auto r = run("import " + write("deep.urdf", nested(20'000)) + " --out " +
                     (dir_ / "out.yaml").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "out.yaml"));
}

// ----- attributes and nodes --------------------------------------------------------------------

/// The link `arm` with `count` attributes a1="0" ... after its name, all on line 3.
std::string attributes(int count) {
  std::string link = "<link name=\"arm\"";
  for (int k = 1; k <= count; ++k) link += " a" + std::to_string(k) + "=\"0\"";
  return robot(link + ">" + kInertial + "</link>");
}

TEST_F(UrdfBounds, AHundredThousandAttributesOnOneLinkAreRefusedAtTheSixtyFifth) {
  model::ModelError e({}, "");
  const std::string xml = attributes(100'000);
  EXPECT_GT(xml.size(), 1'000'000u);
  const double seconds = refusal_seconds(xml, e);
  std::cout << "[ measured ] 100,000 attributes on one link refused in " << seconds << " s\n";
  // name="arm" is the first attribute; a64 the 65th, at column 1 + 16 + 63 * 6 ... of line 3.
  const std::string before_65th = "<link name=\"arm\"" + [] {
    std::string s;
    for (int k = 1; k <= 63; ++k) s += " a" + std::to_string(k) + "=\"0\"";
    return s;
  }() + " ";
  EXPECT_EQ(e.where().line, 3);
  EXPECT_EQ(e.where().column, static_cast<int>(before_65th.size()) + 1);
  EXPECT_TRUE(contains(e.what(), "the element <link> has more than 64 attributes")) << e.what();
  EXPECT_EQ(e.offending(), "link");
  const auto r = run("eval " + write("attributes.urdf", xml));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, ":3:" + std::to_string(before_65th.size() + 1) + ": ")) << r.out;
  // 64 attributes are within the limit (TinyXML and urdfdom ignore those they do not know).
  const auto within = run("eval " + write("64.urdf", attributes(63)));
  EXPECT_EQ(within.code, 0) << within.out;
}

TEST_F(UrdfBounds, AnAttributeGivenTwiceIsLocatedAtTheSecond) {
  const auto e = urdf_error(robot("<link name=\"arm\" name=\"hand\">" + kInertial + "</link>"));
  EXPECT_EQ(e.where().line, 3);
  EXPECT_EQ(e.where().column, 18);
  EXPECT_TRUE(contains(e.what(),
                       "attribute 'name' of <link> is given twice (first at line 3, "
                       "column 7)"))
      << e.what();
}

TEST_F(UrdfBounds, MoreNodesThanTheBudgetAreRefusedAtTheFirstBeyondIt) {
  // 250,001 empty elements in one link: each a node, with <robot>, its links and the rest.
  std::string many;
  for (int k = 0; k < 250'001; ++k) many += "<b/>";
  const std::string xml = robot("<link name=\"arm\">" + many + "</link>");
  const auto e = urdf_error(xml);
  EXPECT_TRUE(contains(e.what(), "the URDF file holds more than 250000 XML nodes")) << e.what();
  EXPECT_EQ(e.where().line, 3);
  EXPECT_EQ(e.offending(), "b");
  const auto r = run("eval " + write("nodes.urdf", xml));
  EXPECT_EQ(r.code, 2) << r.out;
}

// ----- XML as TinyXML reads it -----------------------------------------------------------------

TEST_F(UrdfBounds, TheScanReadsCharacterReferencesAsTinyXmlDoes) {
  // TinyXML reads "&#" to the next ';' wherever it is: here the value of `a` runs over the text
  // to "&#1;" and ends at the quote that seems to open d's value, so that the <c> in that value
  // are elements to TinyXML, nested 70 deep. A scan that took "&#" for two characters would
  // see one attribute value and let TinyXML nest them.
  std::string xml = "<robot name=\"r\" a=\"&#\"><x/>&#1; <c d=\">";
  for (int k = 0; k < 70; ++k) xml += "<c>\n";
  xml += "\"/></robot>\n";
  const auto e = urdf_error(xml);
  EXPECT_TRUE(contains(e.what(), "nests deeper than 64 levels")) << e.what();
  EXPECT_EQ(e.offending(), "c");
}

TEST_F(UrdfBounds, MalformedXmlIsLocatedAndNamed) {
  struct Case {
    const char* what;
    std::string xml;
    int line, column;
    std::string message;
  };
  const Case cases[] = {
      {"an end tag of another element", "<robot name=\"r\">\n<link name=\"base\">\n  </robot>\n", 3,
       3, "malformed XML: </robot> where </link> should close <link> (opened at line 2, column 1)"},
      {"an unterminated attribute value", "<robot name=\"r\">\n<link name=\"base\n", 2, 7,
       "the value of attribute 'name' of <link> never ends"},
      {"a character reference without its ';'", "<robot name=\"r&#12\">\n</robot>\n", 1, 15,
       "a character reference &# has no ';'"},
      {"a comment the file ends in", "<robot name=\"r\">\n<link name=\"base\"/>\n<!-- \n", 3, 1,
       "the file ends inside a comment <!-- that starts here, in <robot>"},
      {"an element the file ends in", "<robot name=\"r\">\n<link name=\"base\"/>\n", 1, 1,
       "the file ends before <robot> is closed (no </robot>)"},
  };
  for (const auto& c : cases) {
    const auto e = urdf_error(c.xml);
    EXPECT_EQ(e.where().file, "robot.urdf") << c.what;
    EXPECT_EQ(e.where().line, c.line) << c.what << ": " << e.what();
    EXPECT_EQ(e.where().column, c.column) << c.what << ": " << e.what();
    EXPECT_TRUE(contains(e.what(), c.message)) << c.what << ": " << e.what();
    const auto r = run("eval " + write("bad.urdf", c.xml));
    EXPECT_EQ(r.code, 2) << c.what << ": " << r.out;
    EXPECT_TRUE(contains(
        r.out, "bad.urdf:" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": "))
        << c.what << ": " << r.out;
  }
}

// ----- elements a link or joint has once -------------------------------------------------------

TEST_F(UrdfBounds, ASecondInertialMassOriginOrInertiaIsRefusedAtTheSecond) {
  const std::string mass = "<mass value=\"1\"/>";
  const std::string inertia =
      "<inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/>";
  const std::string origin = "<origin xyz=\"0 0 0.1\"/>";
  struct Case {
    const char* element;
    std::string link;  // line 3 (and 4)
    std::string joint_extra;
    int line, column;
    std::string message, offending;
  };
  const Case cases[] = {
      {"inertial", "<link name=\"arm\">" + kInertial + "\n" + kInertial + "</link>", "", 4, 1,
       "link 'arm' has a second <inertial> (the first at line 3, column 18): it may have only one",
       "arm"},
      {"mass",
       "<link name=\"arm\"><inertial>" + mass + "\n" + mass + inertia + "</inertial></link>", "", 4,
       1,
       "link 'arm' has a second <mass> in its <inertial> (the first at line 3, column 28): it may "
       "have only one",
       "arm"},
      {"origin of an inertial",
       "<link name=\"arm\"><inertial>" + origin + mass + inertia + "\n" + origin +
           "</inertial></link>",
       "", 4, 1, "link 'arm' has a second <origin> in its <inertial>", "arm"},
      {"inertia",
       "<link name=\"arm\"><inertial>" + mass + inertia + "\n  " + inertia + "</inertial></link>",
       "", 4, 3, "link 'arm' has a second <inertia> in its <inertial>", "arm"},
      {"origin of a joint", "<link name=\"arm\">" + kInertial + "</link>", origin + "\n" + origin,
       5, 1,
       "joint 'j' has a second <origin> (the first at line 4, column 75): it may have only one",
       "j"},
  };
  for (const auto& c : cases) {
    const std::string xml = "<robot name=\"r\">\n<link name=\"base\"/>\n" + c.link +
                            "\n<joint name=\"j\" type=\"continuous\"><parent link=\"base\"/>"
                            "<child link=\"arm\"/>" +
                            c.joint_extra + "</joint>\n</robot>\n";
    const auto e = urdf_error(xml);
    EXPECT_EQ(e.where().line, c.line) << c.element << ": " << e.what();
    EXPECT_EQ(e.where().column, c.column) << c.element << ": " << e.what();
    EXPECT_TRUE(contains(e.what(), c.message)) << c.element << ": " << e.what();
    EXPECT_EQ(e.offending(), c.offending) << c.element;
    const auto r = run("import " + write("twice.urdf", xml));
    EXPECT_EQ(r.code, 2) << c.element << ": " << r.out;
    EXPECT_TRUE(contains(
        r.out, "twice.urdf:" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": "))
        << c.element << ": " << r.out;
  }
}

TEST_F(UrdfBounds, VisualsAndCollisionsMayRepeat) {
  const std::string box = "<geometry><box size=\"0.1 0.1 0.1\"/></geometry>";
  const auto r =
      run("eval " +
          write("visuals.urdf", robot("<link name=\"arm\">" + kInertial + "<visual>" + box +
                                      "</visual><visual>" + box + "</visual><collision>" + box +
                                      "</collision><collision>" + box + "</collision></link>")) +
          " --json");
  EXPECT_EQ(r.code, 0) << r.out;
  // But one <visual> has one shape.
  const auto e = urdf_error(robot("<link name=\"arm\">" + kInertial +
                                  "<visual><geometry><box size=\"1 1 1\"/>\n<sphere "
                                  "radius=\"1\"/></geometry></visual></link>"));
  EXPECT_EQ(e.where().line, 4);
  EXPECT_TRUE(contains(e.what(), "a <geometry> with a second shape <sphere>")) << e.what();
}

// ----- names -----------------------------------------------------------------------------------

TEST_F(UrdfBounds, ALinkNameTooLongForTheModelFileIsRefusedAtTheLink) {
  // 100,000 characters once imported to a model file that appell could not read back.
  const std::string name(100'000, 'a');
  const std::string path =
      write("long.urdf", robot("<link name=\"" + name + "\">" + kInertial + "</link>", name));
  const auto r = run("import " + path + " --out " + (dir_ / "long.yaml").string());
  EXPECT_EQ(r.code, 2) << r.out.substr(0, 400);
  EXPECT_TRUE(contains(r.out, path + ":3:1: the link's name makes the name 'aaaa")) << r.out;
  EXPECT_TRUE(contains(r.out, "of 100000 characters, and a name in a model file has at most 1024"))
      << r.out.substr(0, 400);
  EXPECT_LT(r.out.size(), 600u);  // the name is shown shortened, not whole
  EXPECT_FALSE(std::filesystem::exists(dir_ / "long.yaml"));
}

TEST_F(UrdfBounds, TheLimitIsTheLongestKeyTheModelReaderReads) {
  // A frame name is a key of the model file: yaml-cpp reads a plain key of 1024 characters and
  // not one of 1025. If that changes, the URDF reader's bound must follow.
  const auto model = [](std::size_t length) {
    const std::string frame(length, 'f');
    return "name: m\ncoordinates: [q]\nframes:\n  " + frame +
           ": {rotation: rot_z(q)}\nbodies:\n  b: {frame: " + frame + ", mass: 1}\n";
  };
  EXPECT_NO_THROW(io::parse_model(model(1024), "m.yaml"));
  EXPECT_THROW(io::parse_model(model(1025), "m.yaml"), model::ModelError);
  // A link name that makes names within the bound imports and reads back.
  const std::string name(1000, 'b');
  const std::string urdf =
      write("long.urdf", robot("<link name=\"" + name + "\">" + kInertial + "</link>", name));
  const std::string yaml = (dir_ / "long.yaml").string();
  const auto imported = run("import " + urdf + " --out " + yaml);
  ASSERT_EQ(imported.code, 0) << imported.out.substr(0, 400);
  const auto from_yaml = run("eval " + yaml + " --q 0.3 --qd 1 --json");
  EXPECT_EQ(from_yaml.code, 0) << from_yaml.out.substr(0, 400);
  EXPECT_EQ(from_yaml.out, run("eval " + urdf + " --q 0.3 --qd 1 --json").out);
}

TEST_F(UrdfBounds, NamesWithLineBreaksAndControlCharactersImportToAFileThatReadsBack) {
  // "&#10;" is a line break in a name: written as it is in the model file's comments it ended the
  // comment, and the rest of the name ("evil: [1, 2]") became YAML the reader refused.
  // &#x85; (NEL, a C1 control) and an emoji by reference: urdfdom once wrote them as single bytes
  // (\x85, and U+1F600 cut to one byte) while appell read UTF-8, and the link was not found.
  const std::string link = "arm&#10;evil: [1, 2]&#13;# x&#x85;&#x1F600;";
  const std::string xml =
      "<robot name=\"r&#10;x&#1;y&quot;z\\w\">\n<link name=\"base\"/>\n<link name=\"" + link +
      "\">" + kInertial +
      "<visual><geometry><mesh filename=\"a&#10;b&#9;c&#x85;&#x2028;.stl\"/></geometry></visual>"
      "</link>\n<joint name=\"j&#10;k\" type=\"continuous\"><parent link=\"base\"/><child link=\"" +
      link + "\"/></joint>\n</robot>\n";
  const std::string urdf = write("names.urdf", xml);
  const std::string yaml = (dir_ / "names.yaml").string();
  const auto imported = run("import " + urdf + " --out " + yaml);
  ASSERT_EQ(imported.code, 0) << imported.out;
  std::ifstream in(yaml);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(contains(text.str(),
                       "# joint j\\x0Ak, link arm\\x0Aevil: [1, 2]\\x0D# x\\x85\xF0\x9F\x98\x80"))
      << text.str();
  EXPECT_TRUE(contains(text.str(), "mesh: {file: \"a\\x0Ab\\x09c\\x85\\u2028.stl\"}"))
      << text.str();
  const auto from_yaml = run("eval " + yaml + " --q 0.3 --json");
  ASSERT_EQ(from_yaml.code, 0) << from_yaml.out;
  EXPECT_EQ(from_yaml.out, run("eval " + urdf + " --q 0.3 --json").out);
  // The description and the mesh's file read back as the URDF has them.
  const auto direct = io::read_model(urdf).model;
  const auto back = io::read_model(yaml).model;
  EXPECT_EQ(back->description, direct->description);
  ASSERT_EQ(back->visuals.size(), 1u);
  EXPECT_EQ(back->visuals[0].mesh, direct->visuals[0].mesh);
  EXPECT_EQ(back->visuals[0].mesh, "a\nb\tc\xC2\x85\xE2\x80\xA8.stl");
}

// ----- what is within the limits reads as before -----------------------------------------------

TEST_F(UrdfBounds, RealRobotsImportByteForByteAsBefore) {
  // The expected files are what `appell import` wrote before the bounds, with the URDF's path
  // written @URDF@.
  for (const char* robot : {"ur5_robot", "panda"}) {
    const std::string urdf = std::string(APPELL_EXAMPLES_DIR) + "/urdf/" + robot + ".urdf";
    const std::string out = (dir_ / (std::string(robot) + ".yaml")).string();
    const auto r = run("import " + urdf + " --out " + out);
    ASSERT_EQ(r.code, 0) << r.out;
    std::ifstream written(out),
        expected(std::string(APPELL_TEST_DATA_DIR) + "/urdf_import/" + robot + ".yaml.expected");
    std::stringstream a, b;
    a << written.rdbuf();
    b << expected.rdbuf();
    std::string text = a.str();
    for (std::size_t at = text.find(urdf); at != std::string::npos; at = text.find(urdf, at))
      text.replace(at, urdf.size(), "@URDF@");
    ASSERT_FALSE(b.str().empty()) << robot;
    EXPECT_EQ(text, b.str()) << robot;
  }
}

TEST_F(UrdfBounds, EveryRefusalIsAModelErrorWithALine) {
  // The fuzz target's contract (fuzz/urdf_reader.cpp): a rejection is a model::ModelError with a
  // file, a line and a column.
  const std::string inputs[] = {
      nested(100),
      attributes(70),
      robot("<link name=\"arm\">" + kInertial + kInertial + "</link>"),
      "<robot name=\"r\"><link name=\"a\" b=\"&#x;\" c=\"&#xg;\"/></robot>",
      "<robot><![CDATA[",
      "<robot><a b='1'",
      "<robot></a></robot>",
      "<?xml version=\"1.0\" encoding=\"&#\"?><robot/>",
      // Character references that are no Unicode character: TinyXML writes them as bytes that
      // are not UTF-8 (or as a NUL), which reached the description and the imported file.
      "<robot name=\"r&#xD800;\"/>",
      "<robot name=\"r&#1114112;\"/>",
      "<robot name=\"r\">&#0;</robot>",
      "<robot name=\"r\"><link name=\"a&#99999999999999999999;\"/></robot>",
  };
  for (const auto& xml : inputs) {
    try {
      io::build_model(io::translate_urdf(xml, "fuzz.urdf"));
      ADD_FAILURE() << "accepted: " << xml.substr(0, 200);
    } catch (const model::ModelError& e) {
      EXPECT_EQ(e.where().file, "fuzz.urdf") << e.what();
      EXPECT_GT(e.where().line, 0) << e.what();
      EXPECT_GT(e.where().column, 0) << e.what();
    }
  }
}

}  // namespace
