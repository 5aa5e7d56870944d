// What the mujoco backend reads: the model and reference files named by its text parameters
// (where they are looked for, one clear error each when missing or bad), the joint mapping and
// the models it refuses, and the reference CSV's format.
#include <cstdlib>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mujoco/mujoco.h>

#include "mujoco_test_support.hpp"

namespace cosim::dynamics::mujoco {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;

std::string mjcf(const std::string& body, const std::string& name = "Arm", const std::string& extra = "") {
  return "<mujoco model=\"" + name + "\"><worldbody>" + body + "</worldbody>" + extra + "</mujoco>";
}
const std::string kHinge =
    R"(<body name="link"><joint name="shoulder" type="hinge"/><geom type="sphere" size="0.1" mass="1"/></body>)";

// Runs `fn` with the current folder set to `dir`.
template <class F>
void in_folder(const std::filesystem::path& dir, F&& fn) {
  const auto before = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  try {
    fn();
  } catch (...) {
    std::filesystem::current_path(before);
    throw;
  }
  std::filesystem::current_path(before);
}

TEST_F(MujocoTest, DefaultIsThePendulumShippedUnderTheScenesRoot) {
  const auto b = make({});
  EXPECT_EQ(b->name(), "mujoco");
  EXPECT_EQ(b->model_name(), "Pendulum");
  EXPECT_EQ(b->joint_names(), std::vector<std::string>{"Pendulum/swing"});
  EXPECT_EQ(b->joint_values()[0], 0.6) << "the MJCF's keyframe";
  EXPECT_EQ(b->output_names(),
            (std::vector<std::string>{"contacts", "energy_kinetic_J", "energy_potential_J", "energy_total_J"}));
  EXPECT_THAT(b->model_file(), EndsWith("scenes/pendulum/mujoco/pendulum.xml"));
  EXPECT_EQ(dynamic_cast<MujocoBackend&>(*b).timestep_s(), 0.001);
}

TEST_F(MujocoTest, ARelativeModelIsLookedForInTheCurrentFolderThenUnderTheScenesRoot) {
  write("models/arm.xml", mjcf(kHinge));
  in_folder(dir_, [&] {
    EXPECT_EQ(make({"model=models/arm.xml"})->model_name(), "Arm");
    EXPECT_EQ(make({"model=pendulum/mujoco/pendulum.xml"})->model_name(), "Pendulum");  // not here: the scenes root
  });
  EXPECT_EQ(make({"model=" + (dir_ / "models/arm.xml").string()})->model_name(), "Arm");  // absolute
}

TEST_F(MujocoTest, AMissingModelOrReferenceNamesWhereItWasLookedFor) {
  std::string message;
  in_folder(dir_, [&] { message = param_error([] { make({"model=nowhere.xml"}); }); });
  EXPECT_THAT(message, HasSubstr("parameter 'model' = 'nowhere.xml': no model file at " +
                                 (dir_ / "nowhere.xml").string() + " nor "));
  EXPECT_THAT(message, EndsWith("scenes/nowhere.xml")) << "then under the scenes root";
  EXPECT_THAT(param_error([] { make({"model="}); }), HasSubstr("parameter 'model' is empty"));
  const std::string missing = (dir_ / "missing.csv").string();
  EXPECT_THAT(param_error([&] { make({"trajectory=" + missing}); }),
              HasSubstr("parameter 'trajectory' = '" + missing + "': no reference CSV at " + missing));
}

TEST_F(MujocoTest, AModelMujocoCannotLoadIsOneLineNamingTheFile) {
  const auto file =
      write("bad.xml", "<mujoco model=\"Arm\"><worldbody>\n<body><geom size=\"x\"/></body>\n</worldbody></mujoco>");
  const std::string message = param_error([&] { MujocoBackend(file, {}, 0.0); });
  EXPECT_THAT(message, HasSubstr(file.string() + ": MuJoCo cannot load it: "));
  EXPECT_THAT(message, HasSubstr("'size'"));
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  try {
    MujocoBackend(file, {}, 0.0);
  } catch (const util::BadInputError& e) {
    EXPECT_EQ(e.exit_code(), util::kExitBadInput);
  }
}

// A model written for MuJoCo 3 fails on Debian's 2.2 with a schema error; in an included
// file MuJoCo says "line 0". The error names the included file and line, and this MuJoCo.
TEST_F(MujocoTest, ASchemaErrorNamesTheIncludedFileAndThisMujoco) {
  write("robot.xml", "<mujoco>\n  <worldbody>\n" + kHinge + "\n  </worldbody>\n  <actuator>\n"
                     "    <position joint=\"shoulder\" kp=\"10\" kv=\"2\"/>\n  </actuator>\n</mujoco>\n");
  const auto top = write("top.xml", "<mujoco model=\"Arm\">\n  <include file=\"robot.xml\"/>\n</mujoco>\n");
  const std::string message = param_error([&] { MujocoBackend(top, {}, 0.0); });
  EXPECT_THAT(message, HasSubstr("unrecognized attribute: 'kv' Element 'position', line 0 (in " +
                                 (dir_ / "robot.xml").string() + ":6)"));
  EXPECT_THAT(message, HasSubstr("; cosim uses MuJoCo " + std::string(mj_versionString()) + " (Debian's libmujoco)"));
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  // In the top file MuJoCo's own line stands; the version is said all the same.
  const auto newer = write("newer.xml", "<mujoco model=\"Arm\">\n  <option integrator=\"implicitfast\"/>\n"
                                        "  <worldbody>" + kHinge + "</worldbody>\n</mujoco>\n");
  const std::string keyword = param_error([&] { MujocoBackend(newer, {}, 0.0); });
  EXPECT_THAT(keyword, HasSubstr("invalid keyword: 'implicitfast' Element 'option', line 2; cosim uses MuJoCo"));
  // Other load errors get no version hint.
  const auto broken = write("broken.xml", "<mujoco model=\"Arm\"><worldbody><body><geom size=\"x\"/></body></worldbody></mujoco>");
  EXPECT_THAT(param_error([&] { MujocoBackend(broken, {}, 0.0); }), ::testing::Not(HasSubstr("cosim uses MuJoCo")));
}

// The model file's own limits, before and inside MuJoCo's parser: its size (16 MiB, checked
// before MuJoCo reads it) and its nesting (TinyXML2's own limit, 500: 60 000 nested bodies
// are one error line, not a stack overflow).
TEST_F(MujocoTest, AnOversizedOrDeeplyNestedModelIsOneErrorLine) {
  const auto big = write("big.xml", mjcf(kHinge) + "<!--" + std::string(16u << 20, 'x') + "-->");
  EXPECT_THAT(param_error([&] { MujocoBackend(big, {}, 0.0); }),
              HasSubstr("model file '" + big.string() + "' is " + std::to_string(std::filesystem::file_size(big)) +
                        " bytes; the limit is 16777216"));
  std::string deep = "<mujoco model=\"Arm\"><worldbody>";
  for (int i = 0; i < 60000; ++i) deep += "<body>";
  for (int i = 0; i < 60000; ++i) deep += "</body>";
  deep += "</worldbody></mujoco>";
  const std::string message = param_error([&] { MujocoBackend(write("deep.xml", deep), {}, 0.0); });
  EXPECT_THAT(message, HasSubstr("deep.xml: MuJoCo cannot load it: "));
  EXPECT_THAT(message, HasSubstr("nesting is too deep"));
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST_F(MujocoTest, ANonFiniteInitialStateIsRefusedNamingTheKeyframeAndTheValue) {
  // MuJoCo loads these; the first frame then failed as "internal error" (NaN) or exit 5 (inf).
  const auto keyed = [&](const std::string& name, const std::string& key) {
    return write(name, mjcf(kHinge, "Arm", "<keyframe><key name=\"start\" " + key + "/></keyframe>"));
  };
  EXPECT_THAT(param_error([&] { MujocoBackend(keyed("nan.xml", "qpos=\"nan\""), {}, 0.0); }),
              HasSubstr("nan.xml: its first keyframe 'start' has qpos[0] = nan; a state must be finite"));
  EXPECT_THAT(param_error([&] { MujocoBackend(keyed("inf.xml", "qvel=\"-inf\""), {}, 0.0); }),
              HasSubstr("inf.xml: its first keyframe 'start' has qvel[0] = -inf"));
  EXPECT_EQ(param_error([&] { MujocoBackend(keyed("fine.xml", "qpos=\"0.3\" qvel=\"1\""), {}, 0.0); }), "");
}

TEST_F(MujocoTest, ATimestepBelowAMicrosecondIsRefused) {
  const auto with_step = [&](const std::string& name, const std::string& step) {
    return write(name, "<mujoco model=\"Arm\"><option timestep=\"" + step + "\"/><worldbody>" + kHinge +
                           "</worldbody></mujoco>");
  };
  EXPECT_THAT(param_error([&] { MujocoBackend(with_step("tiny.xml", "1e-9"), {}, 0.0); }),
              HasSubstr("tiny.xml: <option timestep> = 1e-09 s is below the 1e-06 s this backend steps"));
  EXPECT_EQ(param_error([&] { MujocoBackend(with_step("small.xml", "1e-6"), {}, 0.0); }), "");
}

// A frame of many steps (here 50 000 at 1 us) ends at a stop signal within 1000 steps, not at
// the frame's end: the session sets the check to wire::stop_requested.
TEST_F(MujocoTest, AStopSignalEndsALongFrameWithinItsSteps) {
  const auto file = write("small.xml", "<mujoco model=\"Arm\"><option timestep=\"1e-6\"/><worldbody>" + kHinge +
                                           "</worldbody></mujoco>");
  MujocoBackend asked(file, {}, 0.0);
  static int checks = 0;
  checks = 0;
  asked.set_interrupt_check([]() noexcept { return ++checks == 3; });
  try {
    asked.advance_to(0.05);
    ADD_FAILURE() << "the stop was not seen";
  } catch (const util::InterruptedError& e) {
    EXPECT_EQ(checks, 3);
    EXPECT_THAT(e.what(), HasSubstr("inside backend mujoco's step, at t = 0.002999 s"));  // 2999 steps of 1 us
  }
  MujocoBackend not_asked(file, {}, 0.0);
  not_asked.set_interrupt_check([]() noexcept { return false; });
  not_asked.advance_to(0.05);
  EXPECT_EQ(not_asked.time_s(), 0.05);
}

TEST_F(MujocoTest, JointsMapInMujocosOrderAndUnmappableModelsAreRefused) {
  const std::string two = R"(<body name="a"><joint name="hip" type="hinge"/><geom type="sphere" size="0.1" mass="1"/>
      <body name="b" pos="0 0 -1"><joint name="knee" type="slide"/><geom type="sphere" size="0.1" mass="1"/>
      </body></body>)";
  EXPECT_EQ(MujocoBackend(write("two.xml", mjcf(two)), {}, 0.0).joint_names(),
            (std::vector<std::string>{"Arm/hip", "Arm/knee"}));

  const std::string ball =
      R"(<body name="b"><joint name="wrist" type="ball"/><geom type="sphere" size="0.1" mass="1"/></body>)";
  EXPECT_EQ(MujocoBackend(write("ball.xml", mjcf(ball)), {}, 0.0).joint_names(),
            (std::vector<std::string>{"Arm/wrist/yaw", "Arm/wrist/pitch", "Arm/wrist/roll"}))
      << "a ball joint is three angles, like the rotation of a free joint";
  const std::string unnamed = R"(<body name="b"><joint type="hinge"/><geom type="sphere" size="0.1" mass="1"/></body>)";
  EXPECT_THAT(param_error([&] { MujocoBackend(write("unnamed.xml", mjcf(unnamed)), {}, 0.0); }),
              HasSubstr("unnamed.xml: joint #0 (in body 'b') has no name"));
  const std::string spaced =
      R"(<body name="b"><joint name="my joint" type="hinge"/><geom type="sphere" size="0.1" mass="1"/></body>)";
  EXPECT_THAT(param_error([&] { MujocoBackend(write("spaced.xml", mjcf(spaced)), {}, 0.0); }),
              HasSubstr("joint name 'my joint' is not a scene name"));
  const std::string anonymous = "<mujoco><worldbody>" + kHinge + "</worldbody></mujoco>";  // named "MuJoCo Model"
  EXPECT_THAT(param_error([&] { MujocoBackend(write("anonymous.xml", anonymous), {}, 0.0); }),
              HasSubstr("model name 'MuJoCo Model' is not a scene name"));
  const std::string still = R"(<body name="b"><geom type="sphere" size="0.1" mass="1"/></body>)";
  EXPECT_THAT(param_error([&] { MujocoBackend(write("still.xml", mjcf(still)), {}, 0.0); }),
              HasSubstr("still.xml: the model has no joint"));
}

TEST_F(MujocoTest, JointKindsAreSaidForTheScenesCheck) {
  const std::string joints = R"(<body name="a"><joint name="hip" type="hinge"/><geom type="sphere" size="0.1" mass="1"/>
      <body name="b" pos="0 0 -1"><joint name="knee" type="slide"/><geom type="sphere" size="0.1" mass="1"/>
      </body></body><body name="c" pos="2 0 0"><freejoint name="box"/><geom type="box" size="0.1 0.1 0.1"/></body>)";
  const MujocoBackend b(write("kinds.xml", mjcf(joints)), {}, 0.0);
  using enum JointKind;
  const std::vector<JointKind> expected{revolute,  prismatic, prismatic, prismatic, prismatic,
                                        revolute, revolute,  revolute};  // hip, knee, box x y z yaw pitch roll
  ASSERT_EQ(b.joint_names().size(), expected.size());
  EXPECT_EQ(std::vector<JointKind>(b.joint_kinds().begin(), b.joint_kinds().end()), expected);
}

const std::string kServo = mjcf(kHinge, "Arm",
                                R"(<actuator><position name="pos" joint="shoulder" kp="10"/>
                                   <velocity name="vel" joint="shoulder" kv="1"/></actuator>)");

TEST_F(MujocoTest, ReferenceColumnsNameActuatorsOrJointsWithOneActuator) {
  const auto model = write("servo.xml", kServo);
  EXPECT_NO_THROW(MujocoBackend(model, write("ok.csv", "t_s,pos,vel\n0,0,0\n1,1,1\n"), 0.0));
  const auto expect_error = [&](const std::string& csv, const std::string& line, const std::string& what) {
    const auto file = write("ref.csv", csv);
    const std::string message = param_error([&] { MujocoBackend(model, file, 0.0); });
    EXPECT_THAT(message, HasSubstr(file.string() + ":" + line + ": " + what)) << csv;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  };
  expect_error("t_s,shoulder\n0,0\n", "1", "column 'shoulder': joint 'shoulder' of " + model.string() +
                                               " has several actuators (pos, vel); name the actuator instead");
  expect_error("t_s,elbow\n0,0\n", "1", "column 'elbow' is neither an actuator nor a joint of " + model.string() +
                                            " (actuators: pos, vel)");
  expect_error("t_s,pos,pos\n0,0,0\n", "1", "column 'pos' given twice");
  expect_error("time,pos\n0,0\n", "1", "the header must be 't_s,<joint or actuator>,...', got 'time,pos'");
  expect_error("t_s\n0\n", "1", "the header must be");
  expect_error("t_s,pos\n0,0\n1,x\n", "3", "column 'pos': 'x' is not a finite number");
  expect_error("t_s,pos\n0,0\n1,nan\n", "3", "column 'pos': 'nan' is not a finite number");
  expect_error("t_s,pos\n0,0\n0,1\n", "3", "t_s = 0 is not later than the row before");
  expect_error("t_s,pos\n0,0\n1,1,2\n", "3", "3 fields; the header has 2");
  expect_error("t_s,pos\n", "1", "no data row after the header");
  expect_error("", "1", "empty file");
  const std::string no_actuator = mjcf(kHinge);
  const auto passive_model = write("passive.xml", no_actuator);
  const auto csv = write("shoulder.csv", "t_s,shoulder\n0,0\n");
  EXPECT_THAT(param_error([&] { MujocoBackend(passive_model, csv, 0.0); }),
              HasSubstr("joint 'shoulder' of " + passive_model.string() + " has no actuator"));
}

TEST_F(MujocoTest, ABlankLineOrSpacesInTheReferenceAreFine) {
  const auto model = write("servo.xml", kServo);
  EXPECT_NO_THROW(MujocoBackend(model, write("ok.csv", "t_s , pos\r\n0, 0\r\n\r\n1 ,+1\r\n"), 0.0));
}

TEST_F(MujocoTest, TheReferenceIsReadWholeAndCheckedBeforeTheRun) {
  const auto model = write("servo.xml", kServo);
  const auto error_reading = [&](const std::string& csv) {
    return param_error([&] { MujocoBackend(model, write("ref.csv", csv), 0.0); });
  };
  const std::string file = (dir_ / "ref.csv").string();
  EXPECT_EQ(error_reading("t_s,pos\n0,0\n1,1"), "") << "written by hand: the last line may lack its newline";
  EXPECT_THAT(error_reading("t_s,pos\n0,0\n1,"), HasSubstr(file + ":3: column 'pos': '' is not a finite number"))
      << "a torn last line is refused, not left out";
  EXPECT_THAT(error_reading("t_s,pos\n0,0\n1,-inf\n"), HasSubstr(file + ":3: column 'pos': '-inf' is not a finite"));
  EXPECT_THAT(error_reading("t_s,pos\n0,0\n\n1,1\n1,2\n"), HasSubstr(file + ":5: t_s = 1 is not later"))
      << "the line counts the blank one";
  EXPECT_THAT(error_reading("t_s,pos\n\n"), HasSubstr(file + ":2: no data row after the header"));
  // 64 MiB and one byte, sparse: refused by its size before a byte is read.
  write("ref.csv", "");
  std::filesystem::resize_file(dir_ / "ref.csv", (64u << 20) + 1);
  EXPECT_EQ(param_error([&] { MujocoBackend(model, dir_ / "ref.csv", 0.0); }),
            file + ": 67108865 bytes; the limit is 67108864");
}

}  // namespace
}  // namespace cosim::dynamics::mujoco
