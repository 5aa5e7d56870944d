// cosim-fmu export, checked from outside: the real tool writes FMUs of the backends, cosim's
// own importer (cosim::fmi, and the fmu backend in the real cosim-dynamics) reads and runs them,
// and the results are compared with the backends run directly.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <pugixml.hpp>

#include "cosim/dynamics/registry/registry.hpp"
#include "cosim/fmi/fmi3_api.hpp"
#include "cosim/fmi/instance.hpp"
#include "cosim/fmi/model_description.hpp"
#include "cosim/fmi/zip_reader.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/platform/shared_library.hpp"
#include "cosim/test/allocation_probe.hpp"
#include "cosim/test/process.hpp"
#include "cosim/util/errors.hpp"
#include "sanitized_build.hpp"

namespace cosim::test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kBinDir = COSIM_BIN_DIR;
const fs::path kScenesDir = COSIM_SCENES_DIR;

// The functions of FMI 3.0 and 2.0, as the standards list them (fmi3FunctionTypes.h,
// fmi2FunctionTypes.h): every one must be exported, and nothing else.
const std::vector<std::string> kFmi3Functions = {
    "fmi3GetVersion", "fmi3SetDebugLogging", "fmi3InstantiateModelExchange", "fmi3InstantiateCoSimulation",
    "fmi3InstantiateScheduledExecution", "fmi3FreeInstance", "fmi3EnterInitializationMode",
    "fmi3ExitInitializationMode", "fmi3EnterEventMode", "fmi3Terminate", "fmi3Reset",
    "fmi3GetFloat32", "fmi3GetFloat64", "fmi3GetInt8", "fmi3GetUInt8", "fmi3GetInt16", "fmi3GetUInt16", "fmi3GetInt32",
    "fmi3GetUInt32", "fmi3GetInt64", "fmi3GetUInt64", "fmi3GetBoolean", "fmi3GetString", "fmi3GetBinary", "fmi3GetClock",
    "fmi3SetFloat32", "fmi3SetFloat64", "fmi3SetInt8", "fmi3SetUInt8", "fmi3SetInt16", "fmi3SetUInt16", "fmi3SetInt32",
    "fmi3SetUInt32", "fmi3SetInt64", "fmi3SetUInt64", "fmi3SetBoolean", "fmi3SetString", "fmi3SetBinary", "fmi3SetClock",
    "fmi3GetNumberOfVariableDependencies", "fmi3GetVariableDependencies", "fmi3GetFMUState", "fmi3SetFMUState",
    "fmi3FreeFMUState", "fmi3SerializedFMUStateSize", "fmi3SerializeFMUState", "fmi3DeserializeFMUState",
    "fmi3GetDirectionalDerivative", "fmi3GetAdjointDerivative", "fmi3EnterConfigurationMode",
    "fmi3ExitConfigurationMode", "fmi3GetIntervalDecimal", "fmi3GetIntervalFraction", "fmi3GetShiftDecimal",
    "fmi3GetShiftFraction", "fmi3SetIntervalDecimal", "fmi3SetIntervalFraction", "fmi3SetShiftDecimal",
    "fmi3SetShiftFraction", "fmi3EvaluateDiscreteStates", "fmi3UpdateDiscreteStates", "fmi3EnterContinuousTimeMode",
    "fmi3CompletedIntegratorStep", "fmi3SetTime", "fmi3SetContinuousStates", "fmi3GetContinuousStateDerivatives",
    "fmi3GetEventIndicators", "fmi3GetContinuousStates", "fmi3GetNominalsOfContinuousStates",
    "fmi3GetNumberOfEventIndicators", "fmi3GetNumberOfContinuousStates", "fmi3EnterStepMode",
    "fmi3GetOutputDerivatives", "fmi3DoStep", "fmi3ActivateModelPartition"};
const std::vector<std::string> kFmi2Functions = {
    "fmi2GetTypesPlatform", "fmi2GetVersion", "fmi2SetDebugLogging", "fmi2Instantiate", "fmi2FreeInstance",
    "fmi2SetupExperiment", "fmi2EnterInitializationMode", "fmi2ExitInitializationMode", "fmi2Terminate", "fmi2Reset",
    "fmi2GetReal", "fmi2GetInteger", "fmi2GetBoolean", "fmi2GetString", "fmi2SetReal", "fmi2SetInteger",
    "fmi2SetBoolean", "fmi2SetString", "fmi2GetFMUstate", "fmi2SetFMUstate", "fmi2FreeFMUstate",
    "fmi2SerializedFMUstateSize", "fmi2SerializeFMUstate", "fmi2DeSerializeFMUstate", "fmi2GetDirectionalDerivative",
    "fmi2EnterEventMode", "fmi2NewDiscreteStates", "fmi2EnterContinuousTimeMode", "fmi2CompletedIntegratorStep",
    "fmi2SetTime", "fmi2SetContinuousStates", "fmi2GetDerivatives", "fmi2GetEventIndicators", "fmi2GetContinuousStates",
    "fmi2GetNominalsOfContinuousStates", "fmi2SetRealInputDerivatives", "fmi2GetRealOutputDerivatives", "fmi2DoStep",
    "fmi2CancelStep", "fmi2GetStatus", "fmi2GetRealStatus", "fmi2GetIntegerStatus", "fmi2GetBooleanStatus",
    "fmi2GetStringStatus"};

class FmuExportTest : public ::testing::Test {
 protected:
  // The FMUs' scenes are unpacked into the user's cache: this test's own, inherited by the
  // programs it starts (COSIM_CACHE_DIR), never the real one.
  FmuExportTest() : tmp_(::testing::UnitTest::GetInstance()->current_test_info()->name()) {
    setenv("COSIM_CACHE_DIR", (tmp_.path() / "cache").c_str(), 1);
  }
  ~FmuExportTest() override { unsetenv("COSIM_CACHE_DIR"); }

  /// cosim-fmu `args`: its exit code; its stderr in `err` when given.
  int cosim_fmu(const std::vector<std::string>& args, std::string* err = nullptr) {
    Process p(kBinDir / "cosim-fmu", args, tmp_.path() / ("fmu" + std::to_string(++runs_)));
    const auto code = p.wait(std::chrono::seconds(120));
    if (err != nullptr) *err = p.err();
    EXPECT_TRUE(code.has_value()) << "cosim-fmu did not end";
    return code.value_or(-1);
  }
  /// Exports `backend` (extra options `more`) into <tmp>/<file>.
  fs::path exported(const std::string& backend, const std::string& file, std::vector<std::string> more = {}) {
    const fs::path out = tmp_.path() / file;
    std::vector<std::string> args{"export", "--backend", backend, "-o", out.string()};
    args.insert(args.end(), more.begin(), more.end());
    std::string err;
    EXPECT_EQ(cosim_fmu(args, &err), 0) << err;
    return out;
  }
  /// cosim-dynamics alone (no peer) with `args`; its run folder <tmp>/<name>.
  fs::path dynamics(const std::string& name, std::vector<std::string> args) {
    const fs::path run = tmp_.path() / name;
    args.insert(args.end(), {"--channel", "none", "--out", run.string()});
    Process p(kBinDir / "cosim-dynamics", args, tmp_.path() / ("dyn-" + name));
    const auto code = p.wait(std::chrono::seconds(120));
    EXPECT_EQ(code, 0) << p.err();
    return run;
  }
  /// The FMU unpacked into a folder of its own, with its model description.
  struct Unpacked {
    fs::path folder;
    fmi::ModelDescription md;
  };
  Unpacked unpack(const fs::path& fmu) {
    Unpacked u{tmp_.path() / (fmu.stem().string() + "-unpacked"), {}};
    fs::create_directories(u.folder);
    fmi::ZipArchive zip(fmu);
    zip.extract_all(u.folder);
    u.md = fmi::parse_model_description(read_file(u.folder / "modelDescription.xml"), fmu.filename().string());
    return u;
  }

  TempDir tmp_;
  int runs_ = 0;
};

/// Largest |a - b| over every cell of two dynamics.csv files with the same header.
double largest_difference(const fs::path& a, const fs::path& b) {
  const Csv x = read_csv(a), y = read_csv(b);
  EXPECT_EQ(x.columns, y.columns);
  EXPECT_EQ(x.rows.size(), y.rows.size());
  EXPECT_GT(x.rows.size(), 10u);
  double worst = 0.0;
  for (std::size_t r = 0; r < std::min(x.rows.size(), y.rows.size()); ++r) {
    for (std::size_t c = 0; c < std::min(x.rows[r].size(), y.rows[r].size()); ++c) {
      worst = std::max(worst, std::abs(x.rows[r][c] - y.rows[r][c]));
    }
  }
  return worst;
}

// The tolerance for the round trip. The FMU runs the same code at the same
// communication points (the default experiment's step is cosim-dynamics' output step), so
// the two agree to rounding: observed 0 (-0 and 0 aside) on every backend.
constexpr double kRoundTrip_m = 1e-9;

struct RoundTrip {
  std::string backend;
  int fmi;
  std::string duration_s;
};

void PrintTo(const RoundTrip& r, std::ostream* os) { *os << r.backend << " FMI " << r.fmi << ", " << r.duration_s << " s"; }

class FmuRoundTripTest : public FmuExportTest, public ::testing::WithParamInterface<RoundTrip> {};

TEST_P(FmuRoundTripTest, TheFmuBackendReproducesTheBackendRunDirectly) {
  const RoundTrip& p = GetParam();
  const fs::path fmu = exported(p.backend, p.backend + ".fmu", {"--fmi", std::to_string(p.fmi), "--no-reference"});
  const fs::path direct = dynamics("direct", {"--backend", p.backend, "--duration", p.duration_s});
  // No --scene: the fmu backend takes the scene the FMU ships (the backend's own, packed by
  // cosim-fmu export), so the probe columns are there as in the direct run.
  const fs::path via = dynamics("via-fmu", {"--backend", "fmu", "--param", "fmu=" + fmu.string(), "--duration", p.duration_s});
  EXPECT_LE(largest_difference(direct / "dynamics.csv", via / "dynamics.csv"), kRoundTrip_m);
}

// Every exportable backend in Release; under the sanitizers (15-35x slower) the Robotino's
// FMI 3.0 and 2.0 round trips, which take the same FMI layer and binary through every path.
std::vector<RoundTrip> round_trips() {
  if (kSanitizedBuild) return {{"robotino", 3, "5"}, {"robotino", 2, "5"}};
  return {{"robotino", 3, "20"}, {"robotino", 2, "20"}, {"kinematic", 3, "10"},
          {"mecanum3vw", 2, "5"}, {"mecanum4", 3, "1"},  {"omniwheel", 3, "2"}};
}

INSTANTIATE_TEST_SUITE_P(Backends, FmuRoundTripTest, ::testing::ValuesIn(round_trips()),
                         [](const auto& info) { return info.param.backend + "_fmi" + std::to_string(info.param.fmi); });

TEST_F(FmuExportTest, AParameterSetInTheImporterActsAsInTheBackend) {
  // Robotino's rose, larger: set through the FMU (fmu.KEY) and directly (KEY), the same run.
  const fs::path fmu = exported("robotino", "robotino.fmu", {"--no-reference"});
  const std::string scene = platform::utf8(kScenesDir / "robotino");
  const fs::path direct = dynamics("direct", {"--backend", "robotino", "--duration", "5", "--param", "rose_amplitude_m=2.5"});
  const fs::path via = dynamics("via-fmu", {"--backend", "fmu", "--param", "fmu=" + fmu.string(), "--scene", scene,
                                            "--duration", "5", "--param", "fmu.rose_amplitude_m=2.5"});
  EXPECT_LE(largest_difference(direct / "dynamics.csv", via / "dynamics.csv"), kRoundTrip_m);
  // And it changed something: the default amplitude's run differs.
  const fs::path plain = dynamics("plain", {"--backend", "robotino", "--duration", "5"});
  EXPECT_GT(largest_difference(plain / "dynamics.csv", via / "dynamics.csv"), 1e-3);
}

TEST_F(FmuExportTest, TheModelDescriptionIsTheParameterTableJointsAndOutputs) {
  for (const int version : {3, 2}) {
    SCOPED_TRACE("FMI " + std::to_string(version));
    const fs::path fmu = exported("robotino", "robotino" + std::to_string(version) + ".fmu",
                                  {"--fmi", std::to_string(version), "--no-reference", "--param", "mass_kg=12.5"});
    const Unpacked u = unpack(fmu);  // read by the importer's strict reader
    EXPECT_EQ(u.md.fmi_version, version == 3 ? "3.0" : "2.0");
    EXPECT_EQ(u.md.model_name, "Robotino");
    ASSERT_TRUE(u.md.co_simulation.has_value());
    EXPECT_EQ(u.md.co_simulation->model_identifier, "cosim_robotino");
    EXPECT_TRUE(u.md.co_simulation->can_handle_variable_step);
    EXPECT_TRUE(fs::is_regular_file(u.folder / fmi::binary_path(u.md.version, "cosim_robotino")));
    EXPECT_EQ(u.md.stop_time_s, 50.0);  // the rose's 50 s
    EXPECT_EQ(u.md.step_size_s, 0.02);  // cosim-dynamics' output step
    EXPECT_EQ(u.md.token.size(), 38u) << u.md.token;
    // Every declared parameter, with its range and unit; the exported values as starts.
    const auto& entry = dynamics::registry::find_backend("robotino");
    for (const dynamics::ParamSpec& spec : entry.param_specs()) {
      const fmi::Variable* v = u.md.find(spec.key);
      ASSERT_NE(v, nullptr) << spec.key;
      EXPECT_EQ(v->causality, fmi::Causality::parameter) << spec.key;
      EXPECT_EQ(v->variability, fmi::Variability::fixed) << spec.key;
      EXPECT_EQ(v->start, spec.key == "mass_kg" ? 12.5 : spec.default_value) << spec.key;
      EXPECT_EQ(v->min, spec.min_value) << spec.key;
      EXPECT_EQ(v->max, spec.max_value) << spec.key;
      EXPECT_EQ(v->unit, spec.unit == "1" ? "" : spec.unit) << spec.key;
      if (!v->unit.empty()) {
        EXPECT_TRUE(u.md.units.count(v->unit)) << v->unit << " not in UnitDefinitions";
      }
    }
    // Every joint and output of the model, as outputs, in its order.
    const auto model = entry.make(dynamics::Params::resolve("robotino", entry.param_specs(), nullptr, {}), 0.0);
    std::vector<std::string> expected = model->joint_names();
    expected.insert(expected.end(), model->output_names().begin(), model->output_names().end());
    std::vector<std::string> outputs;
    for (const fmi::Variable& v : u.md.variables) {
      if (v.causality == fmi::Causality::output) outputs.push_back(v.name);
    }
    EXPECT_EQ(outputs, expected);
    // Units read from the output names' suffixes.
    ASSERT_NE(u.md.find("dx_m"), nullptr);
    ASSERT_NE(u.md.find("omega1_rad_per_s"), nullptr);
    EXPECT_EQ(u.md.find("dx_m")->unit, "m");
    EXPECT_EQ(u.md.find("omega1_rad_per_s")->unit, "rad/s");
  }
}

// The standard's schema, checked structurally (fmi3ModelDescription.xsd, fmi2ModelDescription.xsd
// in the standards' text): the elements in the order the schema's sequence gives, the required
// attributes, and a model structure that names outputs only.
TEST_F(FmuExportTest, TheModelDescriptionFollowsTheSchemasStructure) {
  for (const int version : {3, 2}) {
    SCOPED_TRACE("FMI " + std::to_string(version));
    const fs::path fmu = exported("mecanum3vw", "m" + std::to_string(version) + ".fmu",
                                  {"--fmi", std::to_string(version), "--no-reference"});
    const Unpacked u = unpack(fmu);
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file((u.folder / "modelDescription.xml").c_str()));
    const pugi::xml_node root = doc.child("fmiModelDescription");
    ASSERT_TRUE(root);
    for (const char* required : {"fmiVersion", "modelName", version == 3 ? "instantiationToken" : "guid"}) {
      EXPECT_TRUE(root.attribute(required)) << required;
    }
    const std::vector<std::string> order = {"ModelExchange", "CoSimulation", "ScheduledExecution", "UnitDefinitions",
                                            "TypeDefinitions", "LogCategories", "DefaultExperiment", "VendorAnnotations",
                                            "ModelVariables", "ModelStructure"};
    std::size_t last = 0;
    for (const pugi::xml_node child : root.children()) {
      const auto at = std::find(order.begin(), order.end(), child.name());
      ASSERT_NE(at, order.end()) << child.name() << " is no element of fmiModelDescription";
      const auto index = static_cast<std::size_t>(at - order.begin());
      EXPECT_GE(index, last) << child.name() << " out of the schema's order";
      last = index;
    }
    EXPECT_TRUE(root.child("CoSimulation").attribute("modelIdentifier"));
    std::set<std::string> outputs;  // FMI 3: value references; FMI 2: 1-based indices
    std::size_t index = 0;
    for (const pugi::xml_node v : root.child("ModelVariables").children()) {
      ++index;
      EXPECT_TRUE(v.attribute("name") && v.attribute("valueReference")) << v.name();
      if (version == 2) {
        EXPECT_EQ(std::string(v.name()), "ScalarVariable");
        EXPECT_TRUE(v.child("Real")) << v.attribute("name").value();
      }
      if (std::string(v.attribute("causality").value()) == "output") {
        outputs.insert(version == 3 ? v.attribute("valueReference").value() : std::to_string(index));
      }
    }
    std::size_t listed = 0;
    const auto check_listed = [&](pugi::xml_node parent, const char* element, const char* key) {
      std::set<std::string> seen;
      for (const pugi::xml_node n : parent.children(element)) {
        ++listed;
        EXPECT_TRUE(outputs.count(n.attribute(key).value())) << element << " " << n.attribute(key).value();
        seen.insert(n.attribute(key).value());
      }
      EXPECT_EQ(seen, outputs) << element << ": every output, once";
    };
    const pugi::xml_node structure = root.child("ModelStructure");
    if (version == 3) {
      check_listed(structure, "Output", "valueReference");
      check_listed(structure, "InitialUnknown", "valueReference");
    } else {
      check_listed(structure.child("Outputs"), "Unknown", "index");
      check_listed(structure.child("InitialUnknowns"), "Unknown", "index");
    }
    EXPECT_EQ(listed, 2 * outputs.size());
    EXPECT_GT(outputs.size(), 40u);  // mecanum3vw's 42 joints and 28 outputs
  }
}

TEST_F(FmuExportTest, AnotherZipImplementationUnpacksTheFmuToTheSameFiles) {
  // CMake's libarchive, not cosim's reader: the archive is a zip any importer opens.
  const fs::path fmu = exported("omniwheel", "omniwheel.fmu", {"--stop", "0.1"});
  const fs::path theirs = tmp_.path() / "by-cmake";
  fs::create_directories(theirs);
  Process tar(COSIM_CMAKE, {"-E", "chdir", theirs.string(), COSIM_CMAKE, "-E", "tar", "xf", fmu.string()},
              tmp_.path() / "tar");
  ASSERT_EQ(tar.wait(std::chrono::seconds(60)), 0) << tar.err();
  const Unpacked ours = unpack(fmu);
  std::size_t files = 0, scene_files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(ours.folder)) {
    if (!entry.is_regular_file()) continue;
    const fs::path relative = fs::relative(entry.path(), ours.folder);
    ++(relative.generic_string().starts_with("resources/cosim/scene/") ? scene_files : files);
    EXPECT_EQ(read_file(theirs / relative), read_file(entry.path())) << relative;
  }
  EXPECT_EQ(files, 6u);  // modelDescription.xml, the binary, 2 resources, 2 extra
  EXPECT_GE(scene_files, 3u);  // scenes/omniwheel's project, robot and objects
}

// The scene an FMU ships reaches both sides through the launcher: the dynamics and the
// recorder draw the same copy (unpacked once into the cache), and their probes agree.
TEST_F(FmuExportTest, TheSceneAnFmuShipsIsDrawnByBothSides) {
  const fs::path fmu = exported("omniwheel", "omniwheel.fmu", {"--no-reference"});
  const fs::path run = tmp_.path() / "run";
  Process cosim(kBinDir / "cosim", {"--recorder", "--backend", "fmu", "--param", "fmu=" + fmu.string(), "--duration",
                                    "1", "--out", run.string()},
                tmp_.path() / "cosim");
  ASSERT_EQ(cosim.wait(std::chrono::seconds(120)), 0) << cosim.err();
  const std::string scene = platform::utf8(tmp_.path() / "cache" / "fmu-scenes");
  const std::string run_json = read_file(run / "run.json");
  EXPECT_THAT(run_json, HasSubstr(scene)) << "the dynamics' scene is the cached copy";
  EXPECT_THAT(read_file(run / "recorder.log"), HasSubstr(scene)) << "the recorder's too";
  // The cached copy is the FMU's resources/cosim/scene/, byte for byte.
  const Unpacked u = unpack(fmu);
  std::size_t compared = 0;
  for (const auto& entry : fs::recursive_directory_iterator(tmp_.path() / "cache" / "fmu-scenes")) {
    if (!entry.is_regular_file()) continue;
    const fs::path relative = fs::relative(entry.path(), tmp_.path() / "cache" / "fmu-scenes");
    const fs::path in_fmu = u.folder / "resources" / "cosim" / "scene" / fs::relative(relative, *relative.begin());
    EXPECT_EQ(read_file(entry.path()), read_file(in_fmu)) << relative;
    ++compared;
  }
  EXPECT_GE(compared, 3u);
  // Both sides computed the probes on the same scene: equal at the same time, to the last bit.
  EXPECT_GT(read_csv(run / "probes.csv").rows.size(), 10u);
  EXPECT_THAT(cosim.out(), HasSubstr("diff_same_time_m max 0;")) << cosim.out();
}

TEST_F(FmuExportTest, TheBinaryExportsEveryFunctionOfBothStandardsAndNothingElse) {
  // nm lists the dynamic symbols the binary defines.
  Process nm("/usr/bin/nm", {"-D", "--defined-only", "--format=posix", COSIM_FMU_BINARY}, tmp_.path() / "nm");
  ASSERT_EQ(nm.wait(std::chrono::seconds(30)), 0) << nm.err();
  std::set<std::string> defined;
  std::istringstream lines(nm.out());
  for (std::string line; std::getline(lines, line);) defined.insert(line.substr(0, line.find(' ')));
  std::set<std::string> expected(kFmi3Functions.begin(), kFmi3Functions.end());
  expected.insert(kFmi2Functions.begin(), kFmi2Functions.end());
  EXPECT_EQ(kFmi3Functions.size(), 75u);
  EXPECT_EQ(kFmi2Functions.size(), 44u);
  EXPECT_EQ(defined, expected);  // SUNDIALS, the backends and cosim's code stay hidden
}

TEST_F(FmuExportTest, TheBinaryNeedsNothingButTheCAndCppRuntime) {
  Process objdump("/usr/bin/objdump", {"-p", COSIM_FMU_BINARY}, tmp_.path() / "objdump");
  ASSERT_EQ(objdump.wait(std::chrono::seconds(30)), 0) << objdump.err();
  std::set<std::string> needed;
  std::istringstream lines(objdump.out());
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string tag, library;
    if (words >> tag >> library && tag == "NEEDED") needed.insert(library);
  }
  const std::set<std::string> runtime{"libstdc++.so.6", "libm.so.6", "libgcc_s.so.1", "libc.so.6", "ld-linux-x86-64.so.2"};
  EXPECT_FALSE(needed.empty());
  for (const std::string& library : needed) EXPECT_TRUE(runtime.count(library)) << library << " is not the C or C++ runtime";
}

// The raw FMI 3 functions of an unpacked FMU, for what the importer library never calls.
struct RawFmi3 {
  explicit RawFmi3(const fs::path& binary) : library(binary) {}
  template <class F>
  F get(const char* name) {
    void* f = library.symbol(name);
    EXPECT_NE(f, nullptr) << name;
    return reinterpret_cast<F>(f);
  }
  platform::SharedLibrary library;
};

std::vector<std::string> g_log;
void record_log(void*, fmi::fmi3::Status status, const char* category, const char* message) {
  g_log.push_back(std::to_string(status) + " " + category + " " + message);
}

TEST_F(FmuExportTest, WhatACosimFmuDoesNotOfferIsAnErrorThatSaysWhy) {
  const Unpacked u = unpack(exported("kinematic", "kinematic.fmu", {"--no-reference"}));
  RawFmi3 raw(u.folder / fmi::binary_path(u.md.version, "cosim_kinematic"));
  const std::string resources = platform::utf8(u.folder / "resources") + "/";
  const auto instantiate = raw.get<fmi::fmi3::InstantiateCoSimulation>("fmi3InstantiateCoSimulation");
  g_log.clear();
  // A token from another export is refused, with the reason in the log.
  EXPECT_EQ(instantiate("k", "{00000000-0000-0000-0000-000000000000}", resources.c_str(), false, false, false, false,
                        nullptr, 0, nullptr, &record_log, nullptr),
            nullptr);
  ASSERT_EQ(g_log.size(), 1u);
  EXPECT_THAT(g_log[0], HasSubstr("is not this model's"));
  fmi::fmi3::Instance m = instantiate("k", u.md.token.c_str(), resources.c_str(), false, false, false, false, nullptr,
                                      0, nullptr, &record_log, nullptr);
  ASSERT_NE(m, nullptr) << (g_log.empty() ? "" : g_log.back());
  using StateFunction = fmi::fmi3::Status (*)(fmi::fmi3::Instance, void**);
  void* state = nullptr;
  EXPECT_EQ(raw.get<StateFunction>("fmi3GetFMUState")(m, &state), fmi::fmi3::kError);
  EXPECT_THAT(g_log.back(), HasSubstr("fmi3GetFMUState: not supported by cosim FMUs (canGetAndSetFMUState"));
  // A step before initialisation, a parameter out of its range, a value reference past the table.
  bool flag = false;
  double last = 0;
  EXPECT_EQ(raw.get<fmi::fmi3::DoStep>("fmi3DoStep")(m, 0.0, 0.1, true, &flag, &flag, &flag, &last), fmi::fmi3::kError);
  EXPECT_THAT(g_log.back(), HasSubstr("fmi3DoStep: not allowed in state 'instantiated'"));
  const fmi::Variable* amplitude = u.md.find("rose_amplitude_m");
  ASSERT_NE(amplitude, nullptr);
  const double too_big = *amplitude->max * 2;
  EXPECT_EQ(raw.get<fmi::fmi3::SetFloat64>("fmi3SetFloat64")(m, &amplitude->value_reference, 1, &too_big, 1),
            fmi::fmi3::kError);
  EXPECT_THAT(g_log.back(), HasSubstr("'rose_amplitude_m' = "));
  const fmi::fmi3::ValueReference past = static_cast<fmi::fmi3::ValueReference>(u.md.variables.size() + 5);
  double value = 0;
  EXPECT_EQ(raw.get<fmi::fmi3::GetFloat64>("fmi3GetFloat64")(m, &past, 1, &value, 1), fmi::fmi3::kError);
  EXPECT_THAT(g_log.back(), HasSubstr("is no variable of kinematic"));
  raw.get<fmi::fmi3::FreeInstance>("fmi3FreeInstance")(m);
}

// The exported FMU's reference result, as the importer library steps it, in several instances
// at once on several threads: each instance is its own model (thread-safe per instance).
TEST_F(FmuExportTest, SeveralInstancesAtOnceEachReproduceTheReferenceResult) {
  const Unpacked u = unpack(exported("robotino", "robotino.fmu", {"--stop", "5"}));
  const Csv reference = read_csv(u.folder / "extra" / "cosim" / "reference.csv");
  ASSERT_EQ(reference.rows.size(), 251u);  // 5 s in steps of 0.02 s, and t = 0
  std::vector<std::uint32_t> vrs;
  for (std::size_t c = 1; c < reference.columns.size(); ++c) {
    const fmi::Variable* v = u.md.find(reference.columns[c]);
    ASSERT_NE(v, nullptr) << reference.columns[c];
    vrs.push_back(v->value_reference);
  }
  constexpr int kInstances = 3;
  std::vector<double> worst(kInstances, -1.0);
  std::vector<std::string> errors(kInstances);
  std::vector<std::thread> threads;
  for (int k = 0; k < kInstances; ++k) {
    threads.emplace_back([&, k] {
      try {
        auto instance = fmi::instantiate(u.folder, u.md, "robotino" + std::to_string(k), nullptr);
        instance->enter_initialization_mode(0.0, std::nullopt, std::nullopt);
        instance->exit_initialization_mode();
        std::vector<double> values(vrs.size());
        double t = 0.0, w = 0.0;
        for (std::size_t r = 0; r < reference.rows.size(); ++r) {
          if (r > 0) {
            instance->do_step(t, 0.02);
            t += 0.02;
          }
          instance->get_float64(vrs, values);
          for (std::size_t c = 0; c < values.size(); ++c) w = std::max(w, std::abs(values[c] - reference.rows[r][c + 1]));
        }
        worst[k] = w;
      } catch (const std::exception& e) {
        errors[k] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int k = 0; k < kInstances; ++k) {
    EXPECT_EQ(errors[k], "");
    // The reference is printed to 17 digits: it reads back exactly.
    EXPECT_EQ(worst[k], 0.0) << "instance " << k;
  }
}

TEST_F(FmuExportTest, SteppingTheExportedFmuDoesNotAllocate) {
  // fmi3DoStep and fmi3GetFloat64 of the exported Robotino, through the importer: the backend's
  // own promise (advance_to does not allocate) kept across the FMI layer.
  const Unpacked u = unpack(exported("robotino", "robotino.fmu", {"--no-reference"}));
  auto instance = fmi::instantiate(u.folder, u.md, "robotino", nullptr);
  instance->enter_initialization_mode(0.0, std::nullopt, std::nullopt);
  instance->exit_initialization_mode();
  std::vector<std::uint32_t> vrs;
  for (const fmi::Variable& v : u.md.variables) {
    if (v.causality == fmi::Causality::output) vrs.push_back(v.value_reference);
  }
  std::vector<double> values(vrs.size());
  instance->do_step(0.0, 0.02);
  const ::cosim::test::AllocationProbe probe;
  for (int k = 1; k < 100; ++k) {
    instance->do_step(k * 0.02, 0.02);
    instance->get_float64(vrs, values);
  }
  EXPECT_EQ(probe.count(), 0u);
}

TEST_F(FmuExportTest, MistakesAreOneLineAndNoFmuIsLeftHalfWritten) {
  std::string err;
  EXPECT_EQ(cosim_fmu({"export", "--backend", "mujoco", "-o", (tmp_.path() / "m.fmu").string()}, &err), 2);
  EXPECT_EQ(err, "cosim-fmu: error: --backend: 'mujoco' cannot be exported (exportable: kinematic, mecanum3vw, mecanum4, "
                 "omniwheel, robotino; fmu, mujoco and trajectory read files or load libraries of their own)\n");
  EXPECT_EQ(cosim_fmu({"export", "--backend", "robotino", "--param", "mass_kg=-1", "-o", (tmp_.path() / "r.fmu").string()}, &err), 2);
  EXPECT_THAT(err, HasSubstr("mass_kg"));
  EXPECT_EQ(cosim_fmu({"export", "--backend", "robotino", "--binary", "/nonexistent/cosim_fmu.so", "-o",
                       (tmp_.path() / "r.fmu").string()}, &err), 2);
  EXPECT_THAT(err, HasSubstr("/nonexistent/cosim_fmu.so: no such binary"));
  EXPECT_EQ(cosim_fmu({"export", "--backend", "robotino", "-o", (tmp_.path() / "no" / "such" / "r.fmu").string()}, &err), 2);
  EXPECT_EQ(err, "cosim-fmu: error: " + (tmp_.path() / "no" / "such" / "r.fmu").string() + ": its folder does not exist\n");
  for (const auto& entry : fs::directory_iterator(tmp_.path())) {
    EXPECT_NE(entry.path().extension(), ".partial") << entry.path();
    EXPECT_NE(entry.path().extension(), ".fmu") << entry.path();
  }
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

}  // namespace
}  // namespace cosim::test
