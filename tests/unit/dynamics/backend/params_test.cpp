#include "cosim/dynamics/params.hpp"

#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/test/scratch_dir.hpp"
#include "cosim/util/errors.hpp"
#include "param_error.hpp"

namespace cosim::dynamics {
namespace {

using ::testing::HasSubstr;
using cosim::test::param_error;

const std::vector<ParamSpec>& test_specs() {
  static const std::vector<ParamSpec> specs{
      {"alpha_m", 1.0, 0.0, 10.0, "m", "first", "test"},
      {"beta_rad", -0.5, -1.0, 1.0, "rad", "second", "test"},
      {"gamma", 3.0, 1.0, 5.0, "1", "third", "test"},
  };
  return specs;
}

class ParamsTest : public cosim::test::ScratchDirTest {
 protected:
  std::filesystem::path write(const std::string& text) const { return ScratchDirTest::write("params.txt", text); }

  static Params resolve(const std::filesystem::path* file, std::vector<std::string> cli = {}) {
    return Params::resolve("testbackend", test_specs(), file, cli);
  }

};

TEST_F(ParamsTest, DefaultsInSpecOrder) {
  const Params p = resolve(nullptr);
  ASSERT_EQ(p.entries().size(), 3u);
  EXPECT_EQ(p.entries()[0].key, "alpha_m");
  EXPECT_EQ(p.entries()[1].key, "beta_rad");
  EXPECT_EQ(p.entries()[2].key, "gamma");
  EXPECT_EQ(p.get("alpha_m"), 1.0);
  EXPECT_EQ(p.get("beta_rad"), -0.5);
  EXPECT_EQ(p.entries()[1].unit, "rad");
  for (const auto& e : p.entries()) EXPECT_EQ(e.origin, "default");
}

TEST_F(ParamsTest, FileOverridesDefaultWithCommentsAndBlankLines) {
  const auto path = write("# a comment\n\n  alpha_m = 2.5   # trailing comment\n\tgamma=+4e0\n");
  const Params p = resolve(&path);
  EXPECT_EQ(p.get("alpha_m"), 2.5);
  EXPECT_EQ(p.get("gamma"), 4.0);
  EXPECT_EQ(p.get("beta_rad"), -0.5);
  EXPECT_EQ(p.entries()[0].origin, path.string());
  EXPECT_EQ(p.entries()[1].origin, "default");
}

TEST_F(ParamsTest, CliOverridesFile) {
  const auto path = write("alpha_m = 2.5\nbeta_rad = 0.25\n");
  const Params p = resolve(&path, {"alpha_m=7", " gamma = 1 "});
  EXPECT_EQ(p.get("alpha_m"), 7.0);
  EXPECT_EQ(p.entries()[0].origin, "cli");
  EXPECT_EQ(p.get("beta_rad"), 0.25);
  EXPECT_EQ(p.entries()[1].origin, path.string());
  EXPECT_EQ(p.get("gamma"), 1.0);
}

TEST_F(ParamsTest, RangeBoundsAreInclusive) {
  const Params p = resolve(nullptr, {"alpha_m=0", "beta_rad=1"});
  EXPECT_EQ(p.get("alpha_m"), 0.0);
  EXPECT_EQ(p.get("beta_rad"), 1.0);
}

TEST_F(ParamsTest, UnknownKeyInFileNamesFileLineBackendAndKnownKeys) {
  const auto path = write("alpha_m = 1\n# x\nfoo = 3\n");
  EXPECT_EQ(param_error([&] { resolve(&path); }),
            path.string() +
                ":3: unknown parameter 'foo' for backend testbackend; known: alpha_m, beta_rad, gamma");
}

TEST_F(ParamsTest, UnknownKeyOnCli) {
  const std::string msg = param_error([&] { resolve(nullptr, {"wheel=1"}); });
  EXPECT_THAT(msg, HasSubstr("command-line override 'wheel=1'"));
  EXPECT_THAT(msg, HasSubstr("unknown parameter 'wheel' for backend testbackend; known: alpha_m"));
}

TEST_F(ParamsTest, OutOfRangeNamesKeyValueRangeAndUnit) {
  const auto path = write("\nbeta_rad = 1.5\n");
  EXPECT_EQ(param_error([&] { resolve(&path); }),
            path.string() + ":2: parameter 'beta_rad' = 1.5 rad is outside [-1, 1] rad");
  EXPECT_THAT(param_error([&] { resolve(nullptr, {"alpha_m=-0.001"}); }),
              HasSubstr("parameter 'alpha_m' = -0.001 m is outside [0, 10] m"));
}

TEST_F(ParamsTest, BadNumbersAreRejected) {
  for (const std::string bad : {"abc", "1.5x", "nan", "inf", "", "1,5", "0x10", "1 2"}) {
    const std::string msg = param_error([&] { resolve(nullptr, {"gamma=" + bad}); });
    EXPECT_THAT(msg, HasSubstr("parameter 'gamma' = '" + bad + "' is not a finite number")) << bad;
    EXPECT_THAT(msg, HasSubstr("[1, 5] 1")) << bad;
  }
  const auto path = write("alpha_m = 2 m\n");
  EXPECT_THAT(param_error([&] { resolve(&path); }),
              HasSubstr(path.string() + ":1: parameter 'alpha_m' = '2 m' is not a finite number"));
}

TEST_F(ParamsTest, DuplicateKeyInFileNamesBothLines) {
  const auto path = write("alpha_m = 1\nbeta_rad = 0\nalpha_m = 2\n");
  EXPECT_EQ(param_error([&] { resolve(&path); }),
            path.string() + ":3: parameter 'alpha_m' given twice (first at " + path.string() + ":1)");
}

TEST_F(ParamsTest, DuplicateKeyOnCliIsAnError) {
  EXPECT_THAT(param_error([&] { resolve(nullptr, {"gamma=2", "gamma=3"}); }),
              HasSubstr("given twice on the command line"));
}

TEST_F(ParamsTest, MalformedLines) {
  const auto path = write("alpha_m 2\n");
  EXPECT_EQ(param_error([&] { resolve(&path); }),
            path.string() + ":1: expected 'key = value', got 'alpha_m 2'");
  const auto path2 = write(" = 2\n");
  EXPECT_THAT(param_error([&] { resolve(&path2); }), HasSubstr(":1: expected 'key = value'"));
  EXPECT_THAT(param_error([&] { resolve(nullptr, {"gamma"}); }), HasSubstr("expected key=value"));
}

TEST_F(ParamsTest, MissingAndOversizedFiles) {
  const auto missing = dir_ / "nope.txt";
  EXPECT_THAT(param_error([&] { resolve(&missing); }),
              HasSubstr("cannot read parameter file '" + missing.string() + "'"));
  const auto big = write(std::string(kMaxParamFileBytes + 1, '#'));
  EXPECT_THAT(param_error([&] { resolve(&big); }), HasSubstr("the limit is"));
}

TEST_F(ParamsTest, GetUndeclaredThrowsOutOfRangeNamingKey) {
  const Params p = resolve(nullptr);
  try {
    (void)p.get("delta");
    FAIL() << "no exception";
  } catch (const std::out_of_range& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("'delta'"));
  }
}

TEST_F(ParamsTest, ParamErrorIsBadInputForTheProcess) {
  try {
    resolve(nullptr, {"gamma=9"});
    FAIL() << "no exception";
  } catch (const util::BadInputError& e) {  // what main() sees: exit code 2
    EXPECT_EQ(e.exit_code(), util::kExitBadInput);
    EXPECT_NE(dynamic_cast<const ParamError*>(&e), nullptr);
    EXPECT_THAT(std::string(e.what()), HasSubstr("parameter 'gamma' = 9 1 is outside [1, 5] 1"));
  }
}

TEST(ConcatParamSpecs, KeepsEveryPartInOrder) {
  const std::vector<ParamSpec> a{{"a1", 1.0, 0.0, 2.0, "m", "first of a", "test"},
                                 {"a2", 0.0, -1.0, 1.0, "rad", "second of a", "test"}};
  const std::vector<ParamSpec> b{{"b1", 3.0, 1.0, 5.0, "1", "only b", "test"}};
  const std::vector<ParamSpec> joined = concat_param_specs({a, {}, b, a});
  ASSERT_EQ(joined.size(), 5u);
  const std::vector<const ParamSpec*> expected{&a[0], &a[1], &b[0], &a[0], &a[1]};
  for (std::size_t i = 0; i < joined.size(); ++i) {
    EXPECT_EQ(joined[i].key, expected[i]->key) << i;
    EXPECT_EQ(joined[i].default_value, expected[i]->default_value) << i;
    EXPECT_EQ(joined[i].doc, expected[i]->doc) << i;
  }
  // Joining a part twice gives duplicate keys, which resolve() refuses.
  EXPECT_THROW(Params::resolve("b", joined, nullptr, {}), std::logic_error);
}

TEST_F(ParamsTest, InconsistentSpecsAreLogicErrors) {
  const std::vector<ParamSpec> out_of_range{{"a", 5.0, 0.0, 1.0, "m", "", ""}};
  EXPECT_THROW(Params::resolve("b", out_of_range, nullptr, {}), std::logic_error);
  const std::vector<ParamSpec> duplicate{{"a", 0.5, 0.0, 1.0, "m", "", ""},
                                         {"a", 0.5, 0.0, 1.0, "m", "", ""}};
  EXPECT_THROW(Params::resolve("b", duplicate, nullptr, {}), std::logic_error);
}

TEST_F(ParamsTest, ASwitchTakesItsNamesOrItsNumbers) {
  const std::vector<ParamSpec> specs{{"tracking", 0.0, 0.0, 1.0, "1", "a switch", "test", {"explicit", "implicit"}}};
  const auto file = write("tracking = implicit\n");
  EXPECT_EQ(Params::resolve("b", specs, &file, {}).get_choice("tracking"), 1u);
  const std::vector<std::string> by_name{"tracking=explicit"}, by_number{"tracking=1"};
  EXPECT_EQ(Params::resolve("b", specs, nullptr, by_name).get_choice("tracking"), 0u);
  EXPECT_EQ(Params::resolve("b", specs, nullptr, by_number).get("tracking"), 1.0);
  EXPECT_EQ(Params::resolve("b", specs, nullptr, {}).get_choice("tracking"), 0u);
  for (const char* bad : {"tracking=Implicit", "tracking=0.5", "tracking=2", "tracking="}) {
    const std::vector<std::string> cli{bad};
    const std::string message = param_error([&] { (void)Params::resolve("b", specs, nullptr, cli); });
    EXPECT_THAT(message, HasSubstr("'tracking'")) << bad;
    EXPECT_THAT(message, HasSubstr("one of explicit (0), implicit (1)")) << bad;
  }
}

// A number and a text parameter (a path), as a backend reading a model file declares them.
const std::vector<ParamSpec>& text_specs() {
  static const std::vector<ParamSpec> specs{
      {"alpha_m", 1.0, 0.0, 10.0, "m", "first", "test"},
      text_param_spec("model", "models/default.xml", "path", "a model file", "test"),
  };
  return specs;
}

TEST_F(ParamsTest, ATextParameterResolvesDefaultThenFileThenCli) {
  const Params by_default = Params::resolve("b", text_specs(), nullptr, {});
  EXPECT_EQ(by_default.get_text("model"), "models/default.xml");
  EXPECT_EQ(by_default.entries()[1].origin, "default");
  EXPECT_EQ(by_default.entries()[1].unit, "path");

  const auto file = write("model = /data/arm v2.xml   # spaces kept, comment not\nalpha_m = 2\n");
  const Params from_file = Params::resolve("b", text_specs(), &file, {});
  EXPECT_EQ(from_file.get_text("model"), "/data/arm v2.xml");
  EXPECT_EQ(from_file.entries()[1].origin, file.string());

  const std::vector<std::string> cli{"model=other.urdf"};
  const Params from_cli = Params::resolve("b", text_specs(), &file, cli);
  EXPECT_EQ(from_cli.get_text("model"), "other.urdf");
  EXPECT_EQ(from_cli.entries()[1].origin, "cli");
  EXPECT_EQ(from_cli.get("alpha_m"), 2.0);  // numbers beside it as before
  ASSERT_TRUE(from_cli.entries()[1].text.has_value());
  EXPECT_FALSE(from_cli.entries()[0].text.has_value()) << "a number has no text (run.json writes it as a number)";
}

TEST_F(ParamsTest, ATextParameterMayBeEmptyAndIsNotANumber) {
  const std::vector<std::string> cli{"model="};
  EXPECT_EQ(Params::resolve("b", text_specs(), nullptr, cli).get_text("model"), "");
  const Params p = Params::resolve("b", text_specs(), nullptr, {});
  EXPECT_THROW((void)p.get("model"), std::logic_error);
  EXPECT_THROW((void)p.get_text("alpha_m"), std::logic_error);
  EXPECT_THROW((void)p.get_text("modle"), std::out_of_range);
}

TEST_F(ParamsTest, TextErrorsAreTheNumbersErrors) {
  const std::vector<std::string> unknown{"modle=x.xml"};
  EXPECT_THAT(param_error([&] { (void)Params::resolve("b", text_specs(), nullptr, unknown); }),
              HasSubstr("unknown parameter 'modle' for backend b; known: alpha_m, model"));
  const std::vector<std::string> text_for_number{"alpha_m=x.xml"};
  EXPECT_THAT(param_error([&] { (void)Params::resolve("b", text_specs(), nullptr, text_for_number); }),
              HasSubstr("parameter 'alpha_m' = 'x.xml' is not a finite number"));
  const std::vector<std::string> twice{"model=a.xml", "model=b.xml"};
  EXPECT_THAT(param_error([&] { (void)Params::resolve("b", text_specs(), nullptr, twice); }),
              HasSubstr("given twice on the command line"));
  const auto file = write("model = a.xml\nmodel = b.xml\n");
  EXPECT_THAT(param_error([&] { (void)Params::resolve("b", text_specs(), &file, {}); }),
              HasSubstr(":2: parameter 'model' given twice"));
}

TEST(ParamSpecs, ATextParameterWithARangeIsAProgrammingError) {
  ParamSpec spec = text_param_spec("model", "a.xml", "path", "a model file", "test");
  spec.max_value = 1.0;
  const std::vector<ParamSpec> specs{spec};
  EXPECT_THROW((void)Params::resolve("b", specs, nullptr, {}), std::logic_error);
}

TEST(ParamSpecs, ASwitchDeclaredWithAnotherRangeIsAProgrammingError) {
  const std::vector<ParamSpec> specs{{"tracking", 0.0, 0.0, 2.0, "1", "a switch", "test", {"explicit", "implicit"}}};
  EXPECT_THROW((void)Params::resolve("b", specs, nullptr, {}), std::logic_error);
}

}  // namespace
}  // namespace cosim::dynamics

namespace cosim::dynamics {
namespace {

// A family (an FMU's variables, known once the FMU is read): any `fmu.<name>` is taken as
// text, from the file and the command line, in the order first given, after the declared keys;
// duplicates and strangers are the errors they are for declared keys.
class ParamFamilyTest : public cosim::test::ScratchDirTest {
 protected:
  static Params resolve(const std::filesystem::path* file, std::vector<std::string> cli) {
    return Params::resolve("fmu", specs(), file, cli);
  }
  static const std::vector<ParamSpec>& specs() {
    static const std::vector<ParamSpec> s{
        text_param_spec("fmu", "model.fmu", "path", "the FMU", "test"),
        family_param_spec("fmu.", "a variable of the FMU", "test"),
        {"step_s", 0.001, 1e-6, 1.0, "s", "sub-step", "test"},
    };
    return s;
  }
};

TEST_F(ParamFamilyTest, MembersAreTakenAsTextAfterTheDeclaredKeys) {
  const auto file = write("p.params", "fmu.k = 400\n# a comment\nfmu.label = two words\n");
  const Params p = resolve(&file, {"fmu.c=0.3", "step_s=0.01", "fmu.k=410"});
  ASSERT_EQ(p.entries().size(), 5u);
  EXPECT_EQ(p.entries()[0].key, "fmu");
  EXPECT_EQ(p.entries()[1].key, "step_s") << "a family has no entry of its own";
  const auto members = p.family("fmu.");
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0]->key, "fmu.k");
  EXPECT_EQ(*members[0]->text, "410") << "the command line beats the file";
  EXPECT_EQ(members[0]->origin, "cli");
  EXPECT_EQ(*members[1]->text, "two words");
  EXPECT_EQ(members[1]->origin, file.string());
  EXPECT_EQ(members[2]->key, "fmu.c");
  EXPECT_EQ(p.get("step_s"), 0.01);
  EXPECT_TRUE(resolve(nullptr, {}).family("fmu.").empty());
}

TEST_F(ParamFamilyTest, DuplicatesAndStrangersAreErrorsAsForDeclaredKeys) {
  EXPECT_THAT(param_error([] { (void)resolve(nullptr, {"fmu.k=1", "fmu.k=2"}); }),
              HasSubstr("parameter 'fmu.k' given twice on the command line"));
  const auto file = write("twice.params", "fmu.k = 1\nfmu.k = 2\n");
  EXPECT_THAT(param_error([&] { (void)resolve(&file, {}); }),
              HasSubstr("twice.params:2: parameter 'fmu.k' given twice (first at "));
  EXPECT_THAT(param_error([] { (void)resolve(nullptr, {"fmux=1"}); }),
              HasSubstr("unknown parameter 'fmux' for backend fmu; known: fmu, fmu.<name>, step_s"));
  EXPECT_THAT(param_error([] { (void)resolve(nullptr, {"fmu.=1"}); }),
              HasSubstr("unknown parameter 'fmu.'")) << "a member has a name";
  EXPECT_TRUE(is_family(specs()[1]));
  EXPECT_FALSE(is_family(specs()[0]));
  EXPECT_THROW((void)family_param_spec("fmu", "no dot", "test"), std::logic_error);
}

}  // namespace
}  // namespace cosim::dynamics
