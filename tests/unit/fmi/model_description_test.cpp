// modelDescription.xml of FMI 3.0 and 2.0 read into one form, and every problem an importer
// relies on one line naming the file, the line and the variable.
#include "cosim/fmi/model_description.hpp"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/util/errors.hpp"

namespace cosim::fmi {
namespace {

using ::testing::HasSubstr;

const std::string kFmi3 = R"(<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="MassSpringDamper" instantiationToken="{8c4e810f-3df3-4a00-8276-176fa3c9f000}"
    generationTool="cosim tests">
  <CoSimulation modelIdentifier="msd" canHandleVariableCommunicationStepSize="true" fixedInternalStepSize="0.001"/>
  <UnitDefinitions>
    <Unit name="m"><BaseUnit m="1"/></Unit>
    <Unit name="N/m"/>
  </UnitDefinitions>
  <DefaultExperiment startTime="0" stopTime="10" stepSize="0.01"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="x" valueReference="1" causality="output" variability="continuous" initial="exact" start="0.1" unit="m"/>
    <Float64 name="k" valueReference="2" causality="parameter" variability="fixed" start="100" min="0" max="1e6" unit="N/m"
             description="spring stiffness"/>
    <Int32 name="n" valueReference="3" causality="parameter" variability="fixed" start="4"/>
    <Boolean name="on" valueReference="4" causality="parameter" variability="fixed" start="true"/>
    <String name="label" valueReference="5" causality="parameter" variability="fixed" start="hello"/>
  </ModelVariables>
  <ModelStructure><Output valueReference="1"/></ModelStructure>
</fmiModelDescription>
)";

const std::string kFmi2 = R"(<?xml version="1.0"?>
<fmiModelDescription fmiVersion="2.0" modelName="BouncingBall" guid="{1234}">
  <CoSimulation modelIdentifier="bouncing_ball" canHandleVariableCommunicationStepSize="false"/>
  <ModelVariables>
    <ScalarVariable name="h" valueReference="0" causality="output" variability="continuous" initial="exact">
      <Real start="1" unit="m"/>
    </ScalarVariable>
    <ScalarVariable name="h_alias" valueReference="0" causality="local" variability="continuous">
      <Real/>
    </ScalarVariable>
    <ScalarVariable name="bounces" valueReference="0" causality="output" variability="discrete">
      <Integer/>
    </ScalarVariable>
  </ModelVariables>
</fmiModelDescription>
)";

std::string error_of(const std::string& xml) {
  try {
    (void)parse_model_description(xml, "m.fmu:modelDescription.xml");
  } catch (const util::BadInputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) ADD_FAILURE() << "no '" << from << "' in the sample";
  else text.replace(at, from.size(), to);
  return text;
}

TEST(ModelDescription, Fmi3IsReadIntoTheCommonForm) {
  const ModelDescription md = parse_model_description(kFmi3, "m.fmu:modelDescription.xml");
  EXPECT_EQ(md.version, FmiVersion::v3);
  EXPECT_EQ(md.model_name, "MassSpringDamper");
  EXPECT_EQ(md.token, "{8c4e810f-3df3-4a00-8276-176fa3c9f000}");
  ASSERT_TRUE(md.co_simulation.has_value());
  EXPECT_EQ(md.co_simulation->model_identifier, "msd");
  EXPECT_TRUE(md.co_simulation->can_handle_variable_step);
  EXPECT_EQ(md.co_simulation->fixed_internal_step_s, 0.001);
  EXPECT_EQ(md.units, (std::set<std::string>{"m", "N/m"}));
  EXPECT_EQ(md.stop_time_s, 10);
  EXPECT_EQ(md.step_size_s, 0.01);
  ASSERT_EQ(md.variables.size(), 6u);
  const Variable* k = md.find("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->value_reference, 2u);
  EXPECT_EQ(k->causality, Causality::parameter);
  EXPECT_EQ(k->variability, Variability::fixed);
  EXPECT_EQ(k->start, 100);
  EXPECT_EQ(k->max, 1e6);
  EXPECT_EQ(k->unit, "N/m");
  EXPECT_EQ(k->description, "spring stiffness");
  EXPECT_EQ(k->line, 13u);
  EXPECT_EQ(md.find("n")->type, VariableType::int32);
  EXPECT_EQ(md.find("n")->variability, Variability::fixed);
  EXPECT_EQ(md.find("on")->start, 1.0);
  EXPECT_EQ(md.find("label")->start_text, "hello");
  EXPECT_FALSE(md.find("label")->start.has_value());
  EXPECT_EQ(md.find("x")->initial, "exact");
}

TEST(ModelDescription, Fmi2IsReadIntoTheSameFormAliasesAllowed) {
  const ModelDescription md = parse_model_description(kFmi2, "b.fmu:modelDescription.xml");
  EXPECT_EQ(md.version, FmiVersion::v2);
  EXPECT_EQ(md.token, "{1234}");
  EXPECT_FALSE(md.co_simulation->can_handle_variable_step);
  ASSERT_EQ(md.variables.size(), 3u);
  EXPECT_EQ(md.find("h")->type, VariableType::float64) << "FMI 2's Real";
  EXPECT_EQ(md.find("h")->start, 1);
  EXPECT_EQ(md.find("h")->unit, "m");
  EXPECT_EQ(md.find("bounces")->type, VariableType::int32) << "FMI 2's Integer";
  EXPECT_EQ(md.find("h_alias")->value_reference, md.find("h")->value_reference) << "an alias";
}

TEST(ModelDescription, EveryProblemNamesTheFileTheLineAndTheVariable) {
  EXPECT_THAT(error_of("<fmi"), HasSubstr("m.fmu:modelDescription.xml: not XML: "));
  EXPECT_EQ(error_of("<model/>"), "m.fmu:modelDescription.xml: no <fmiModelDescription> element: not an FMU's model description");
  EXPECT_EQ(error_of(replaced(kFmi3, "fmiVersion=\"3.0\"", "fmiVersion=\"1.0\"")),
            "m.fmu:modelDescription.xml:2: fmiVersion=\"1.0\": FMI 3.x and 2.0 are read");
  EXPECT_EQ(error_of(replaced(kFmi3, " instantiationToken=\"{8c4e810f-3df3-4a00-8276-176fa3c9f000}\"", "")),
            "m.fmu:modelDescription.xml:2: no instantiationToken");
  EXPECT_EQ(error_of(replaced(kFmi3, "modelIdentifier=\"msd\"", "modelIdentifier=\"../msd\"")),
            "m.fmu:modelDescription.xml:4: modelIdentifier=\"../msd\" is not a C identifier (it names the binary)");
  EXPECT_EQ(error_of(replaced(kFmi3, "name=\"k\" valueReference=\"2\"", "name=\"k\" valueReference=\"1\"")),
            "m.fmu:modelDescription.xml:13: variable 'k': valueReference 1 is also 'x''s");
  EXPECT_EQ(error_of(replaced(kFmi3, "name=\"n\"", "name=\"k\"")),
            "m.fmu:modelDescription.xml:15: variable 'k' is declared twice");
  EXPECT_EQ(error_of(replaced(kFmi3, "start=\"100\"", "start=\"-1\"")),
            "m.fmu:modelDescription.xml:13: variable 'k': start=-1 outside [min, max]");
  EXPECT_EQ(error_of(replaced(kFmi3, "start=\"100\"", "start=\"1OO\"")),
            "m.fmu:modelDescription.xml:13: start=\"1OO\" is not a finite number");
  EXPECT_EQ(error_of(replaced(kFmi3, "causality=\"output\"", "causality=\"result\"")),
            "m.fmu:modelDescription.xml:12: variable 'x': causality=\"result\" is not one of FMI 3.0's");
  EXPECT_EQ(error_of(replaced(kFmi3, "name=\"n\" valueReference=\"3\" causality=\"parameter\" variability=\"fixed\"",
                              "name=\"n\" valueReference=\"3\" causality=\"parameter\" variability=\"continuous\"")),
            "m.fmu:modelDescription.xml:15: variable 'n': continuous, but of type Int32");
  EXPECT_EQ(error_of(replaced(kFmi3, "valueReference=\"5\"", "valueReference=\"-5\"")),
            "m.fmu:modelDescription.xml:17: variable 'label': valueReference=\"-5\" is not an unsigned 32-bit number");
  EXPECT_EQ(error_of(replaced(kFmi2, "<Real start=\"1\" unit=\"m\"/>", "")),
            "m.fmu:modelDescription.xml:5: a ScalarVariable without its type (Real, Integer, Boolean, String, Enumeration)");
}

}  // namespace
}  // namespace cosim::fmi
