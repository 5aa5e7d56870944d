#include "cosim/dynamics/mujoco/mujoco_backend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>
#include <system_error>
#include <utility>

#include <mujoco/mujoco.h>

#include "cosim/dynamics/format_number.hpp"
#include "cosim/dynamics/time_table.hpp"
#include "cosim/scene/scene_locator.hpp"
#include "cosim/util/text.hpp"
#include "mujoco_joints.hpp"
#include "reference_csv.hpp"
#include "robotino_controller.hpp"

namespace cosim::dynamics::mujoco {

namespace fs = std::filesystem;

/// A loaded model and its joints, before the Backend base is built from the joint names.
struct LoadedMujocoModel {
  mjcf::ModelPtr model;
  JointMap joints;
  std::unique_ptr<RobotinoRoseController> controller;  // the controller the model asks for, if any
  std::string file;
};

namespace {

/// The default model, under the scenes root (scenes/pendulum/ draws it).
constexpr const char* kDefaultModel = "pendulum/mujoco/pendulum.xml";
// MuJoCo's own default is 2 ms and stiff models use 10-100 us; below 1 us a second of the
// model is more than a million steps, which no frame should wait for.
constexpr double kMinTimestep_s = 1e-6;
// A stop signal is looked at every this many steps inside one frame (each is microseconds).
constexpr std::uint32_t kStepsPerInterruptCheck = 1000;

/// Warnings after which the state is no longer the model's: MuJoCo reset it (bad qpos, qvel,
/// qacc), zeroed ctrl, or dropped contacts or constraints.
struct FatalWarning {
  int id;
  const char* name;
  const char* consequence;
};
constexpr FatalWarning kFatalWarnings[] = {
    {mjWARN_BADQPOS, "mjWARN_BADQPOS", "MuJoCo reset the state to the model's initial one"},
    {mjWARN_BADQVEL, "mjWARN_BADQVEL", "MuJoCo reset the state to the model's initial one"},
    {mjWARN_BADQACC, "mjWARN_BADQACC",
     "MuJoCo reset the state to the model's initial one; a smaller <option timestep> or a softer model may help"},
    {mjWARN_BADCTRL, "mjWARN_BADCTRL", "MuJoCo set the controls to 0"},
    {mjWARN_CONTACTFULL, "mjWARN_CONTACTFULL", "contacts were dropped; raise <size nconmax>"},
    {mjWARN_CNSTRFULL, "mjWARN_CNSTRFULL", "constraints were dropped; raise <size njmax>"},
};

// MuJoCo's warnings are read from mjData after every step (step()); printing them would also
// write MUJOCO_LOG.TXT into the current folder.
void ignore_warning(const char*) {}

// MuJoCo's default error handler waits for Enter and exits; a run must end with its status.
[[noreturn]] void throw_error(const char* message) {
  throw BackendError(std::string("backend mujoco: MuJoCo error: ") + message);
}

void install_mujoco_handlers() {
  static const bool installed = [] {
    mju_user_warning = &ignore_warning;
    mju_user_error = &throw_error;
    return true;
  }();
  (void)installed;
}

// A time for messages: k·h prints as 0.6, not 0.6000000000000001.
std::string time_text(double t_s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g s", t_s);
  return text;
}

LoadedMujocoModel load_model(const fs::path& file, const std::vector<fs::path>& package_path) {
  install_mujoco_handlers();
  LoadedMujocoModel loaded;
  loaded.file = file.string();
  try {
    loaded.model = mjcf::load_model(file, {.package_path = package_path});
  } catch (const mjcf::ModelError& e) {
    throw ParamError(e.what());
  }
  mjModel* m = loaded.model.get();
  if (!(m->opt.timestep > 0.0) || !std::isfinite(m->opt.timestep)) {
    throw ParamError(loaded.file + ": <option timestep> = " + format_number(m->opt.timestep) + " s; it must be > 0");
  }
  if (m->opt.timestep < kMinTimestep_s) {
    throw ParamError(loaded.file + ": <option timestep> = " + format_number(m->opt.timestep) + " s is below the " +
                     format_number(kMinTimestep_s) + " s this backend steps (" +
                     format_number(std::round(1.0 / m->opt.timestep)) + " steps per simulated second)");
  }
  m->opt.enableflags |= mjENBL_ENERGY;  // for the energy outputs
  loaded.joints = map_joints(m, loaded.file);
  loaded.controller = RobotinoRoseController::from_model(m, loaded.file);
  return loaded;
}

// The actuator a reference column drives: the actuator of that name, else the one actuator
// whose transmission is the joint of that name.
int column_actuator(const mjModel* m, const std::string& name, const std::string& where,
                    const std::string& model_file) {
  if (const int actuator = mj_name2id(m, mjOBJ_ACTUATOR, name.c_str()); actuator >= 0) return actuator;
  std::vector<std::string> actuators;
  for (int a = 0; a < m->nu; ++a) {
    const char* actuator_name = mj_id2name(m, mjOBJ_ACTUATOR, a);
    actuators.emplace_back(actuator_name != nullptr ? actuator_name : "#");
    if (actuator_name == nullptr) actuators.back() += std::to_string(a);  // unnamed: its number
  }
  const int joint = mj_name2id(m, mjOBJ_JOINT, name.c_str());
  if (joint < 0) {
    throw ParamError(where + ": column '" + name + "' is neither an actuator nor a joint of " + model_file +
                     " (actuators: " + (actuators.empty() ? std::string("none") : util::join(actuators)) + ")");
  }
  std::vector<int> on_joint;
  for (int a = 0; a < m->nu; ++a) {
    if (m->actuator_trntype[a] == mjTRN_JOINT && m->actuator_trnid[2 * a] == joint) on_joint.push_back(a);
  }
  if (on_joint.size() != 1) {
    std::vector<std::string> names;
    for (const int a : on_joint) names.push_back(actuators[static_cast<std::size_t>(a)]);
    throw ParamError(where + ": column '" + name + "': joint '" + name + "' of " + model_file + " has " +
                     (on_joint.empty() ? "no actuator; add a <position> or <velocity> actuator on it"
                                       : "several actuators (" + util::join(names) + "); name the actuator instead"));
  }
  return on_joint.front();
}

std::vector<std::string> mujoco_output_names(bool with_controller) {
  std::vector<std::string> names{"contacts", "energy_kinetic_J", "energy_potential_J", "energy_total_J"};
  if (with_controller) {
    for (std::string& name : RobotinoRoseController::output_names()) names.push_back(std::move(name));
  }
  return names;
}

}  // namespace

std::span<const ParamSpec> mujoco_param_specs() {
  static const std::vector<ParamSpec> specs{
      text_param_spec("model", kDefaultModel, "path",
                      "MJCF or URDF file; relative: the current folder, then the scenes root",
                      "the pendulum of scenes/pendulum/mujoco/pendulum.xml (ships with the repo)"),
      text_param_spec("trajectory", "", "path",
                      "reference CSV 't_s,<joint or actuator>,...' setting actuator ctrl; empty: ctrl stays 0",
                      "assumption: none, the model runs passive"),
  };
  return specs;
}

std::unique_ptr<Backend> make_mujoco_backend(const Params& params, double t0_s) {
  const fs::path model = params.input_file("model", "model file", &scene::input_file_candidates);
  const fs::path reference = params.get_text("trajectory").empty()
                                 ? fs::path()
                                 : params.input_file("trajectory", "reference CSV", &scene::input_file_candidates);
  return std::make_unique<MujocoBackend>(model, reference, t0_s, params.package_path());
}

void MujocoBackend::ModelDeleter::operator()(mjModel_* m) const { mj_deleteModel(m); }
void MujocoBackend::DataDeleter::operator()(mjData_* d) const { mj_deleteData(d); }

MujocoBackend::MujocoBackend(const fs::path& model_file, const fs::path& reference_file, double t0_s,
                             const std::vector<fs::path>& package_path)
    : MujocoBackend(load_model(model_file, package_path), reference_file, t0_s) {}

MujocoBackend::MujocoBackend(LoadedMujocoModel&& loaded, const fs::path& reference_file, double t0_s)
    : Backend("mujoco", loaded.joints.model_name, loaded.joints.scene_names,
              mujoco_output_names(loaded.controller != nullptr), t0_s),
      model_(loaded.model.release()),
      joints_(std::make_unique<const JointMap>(std::move(loaded.joints))),
      controller_(std::move(loaded.controller)),
      t0_s_(t0_s),
      timestep_s_(model_->opt.timestep) {
  set_model_file(loaded.file);
  set_joint_kinds(joints_->kinds);  // hinge or slide: compared with the scene's drives
  mjModel* m = model_.get();
  data_.reset(mj_makeData(m));
  if (!data_) throw BackendError("backend mujoco: " + model_file() + ": MuJoCo cannot allocate its data");
  // The initial state: the model's first keyframe if it has one, else qpos0 at rest.
  if (m->nkey > 0) mj_resetDataKeyframe(m, data_.get(), 0);
  check_initial_state();
  data_->time = t0_s;
  if (controller_) {
    if (!reference_file.empty()) {
      throw ParamError(model_file() + " drives its actuators with its own controller (<custom> cosim.controller); "
                       "a trajectory cannot drive them too");
    }
    controller_->start(m, data_.get(), t0_s);
  }
  if (!reference_file.empty()) read_reference(reference_file);

  const std::size_t n = joint_names().size();
  latest_.q.assign(n, 0.0);
  latest_.controller.assign(output_names().size() - mujoco_output::kCount, 0.0);
  take_sample(latest_, std::vector<double>(n, 0.0));
  previous_ = latest_;
  std::copy(latest_.q.begin(), latest_.q.end(), mutable_joint_values().begin());
  write_outputs(0.0, mutable_outputs());
}

MujocoBackend::~MujocoBackend() = default;

void MujocoBackend::read_reference(const fs::path& file) {
  reference_ = std::make_unique<const ReferenceCsv>(ReferenceCsv::read(file));
  const std::string where = file.string() + ":1";
  for (const std::string& name : reference_->names()) {
    const int actuator = column_actuator(model_.get(), name, where, model_file());
    const auto same = std::find(reference_actuator_.begin(), reference_actuator_.end(), actuator);
    if (same != reference_actuator_.end()) {
      const std::string& first = reference_->names()[static_cast<std::size_t>(same - reference_actuator_.begin())];
      throw ParamError(where + ": columns '" + first + "' and '" + name + "' drive the same actuator");
    }
    reference_actuator_.push_back(actuator);
  }
  reference_values_.assign(reference_actuator_.size(), 0.0);
}

void MujocoBackend::do_advance_to(double t_s, std::span<double> q, std::span<double> outputs) {
  // A time a few ulps from a step is that step: k·h and a caller's frame time differ by rounding.
  const double reached_s = t_s - 16.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t_s));
  // Step until the latest state reaches t_s; the state before the last step is sampled too,
  // so t_s lies between the two samples.
  bool stepped = false;
  std::uint32_t steps_since_check = 0;
  while (state_time_s(steps_) < reached_s) {
    if (++steps_since_check == kStepsPerInterruptCheck) {
      steps_since_check = 0;
      throw_if_interrupted(state_time_s(steps_));
    }
    if (state_time_s(steps_ + 1) >= reached_s) {
      if (stepped) {
        take_sample(previous_, latest_.q);
      } else {
        std::swap(previous_, latest_);  // the latest sample is this state's
      }
    }
    step();
    stepped = true;
  }
  if (stepped) take_sample(latest_, previous_.q);

  // Linear between the samples, written from the latest one: exactly it when t_s is on a step.
  const double back = std::max(0.0, (state_time_s(steps_) - t_s) / timestep_s_);  // in [0, 1)
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = latest_.q[i] - back * (latest_.q[i] - previous_.q[i]);
  write_outputs(back, outputs);
}

void MujocoBackend::step() {
  const mjModel* m = model_.get();
  mjData* d = data_.get();
  const double t_from_s = state_time_s(steps_);
  if (reference_) {  // ctrl held over the step at the reference's value at its start
    reference_->sample(t_from_s, reference_values_);
    for (std::size_t c = 0; c < reference_values_.size(); ++c) d->ctrl[reference_actuator_[c]] = reference_values_[c];
  }
  if (controller_) controller_->control(m, d, t_from_s, timestep_s_);
  mj_step(m, d);
  ++steps_;
  check_step(t_from_s);
}

void MujocoBackend::check_initial_state() const {
  const mjModel* m = model_.get();
  const mjData* d = data_.get();
  std::string from = "its initial state (qpos0, at rest)";
  if (m->nkey > 0) {
    const char* key = mj_id2name(m, mjOBJ_KEY, 0);
    from = std::string("its first keyframe") + (key != nullptr ? " '" + util::printable(key) + "'" : std::string());
  }
  const auto check = [&](const char* name, const mjtNum* values, int count) {
    for (int i = 0; i < count; ++i) {
      if (!std::isfinite(values[i])) {
        throw ParamError(model_file() + ": " + from + " has " + name + "[" + std::to_string(i) +
                         "] = " + format_number(values[i]) + "; a state must be finite");
      }
    }
  };
  check("qpos", d->qpos, m->nq);
  check("qvel", d->qvel, m->nv);
  check("act", d->act, m->na);
  check("ctrl", d->ctrl, m->nu);
}

void MujocoBackend::check_step(double t_from_s) const {
  const mjModel* m = model_.get();
  const mjData* d = data_.get();
  const auto fail = [&](const std::string& what) {
    throw BackendError("backend mujoco: " + model_file() + ": in the step from t = " + time_text(t_from_s) + " to " +
                       time_text(state_time_s(steps_)) + ", " + what);
  };
  for (const FatalWarning& w : kFatalWarnings) {
    if (d->warning[w.id].number > 0) {
      fail(std::string("MuJoCo warning ") + w.name + " (" + mjcf::one_line(mju_warningText(w.id, d->warning[w.id].lastinfo)) +
           "): " + w.consequence);
    }
  }
  const auto check = [&](const char* name, const mjtNum* values, int count) {
    for (int i = 0; i < count; ++i) {
      if (mju_isBad(values[i])) {
        fail(std::string(name) + "[" + std::to_string(i) + "] = " + format_number(values[i]) +
             " is not finite or beyond 1e10");
      }
    }
  };
  check("qpos", d->qpos, m->nq);
  check("qvel", d->qvel, m->nv);
}

void MujocoBackend::take_sample(Sample& sample, std::span<const double> near) {
  const mjModel* m = model_.get();
  mjData* d = data_.get();
  scene_joint_values(*joints_, m, d->qpos, near, sample.q);
  // mj_step computed energy and contacts for the state before it: compute them for this one.
  mj_forward(m, d);
  sample.potential_J = d->energy[0];
  sample.kinetic_J = d->energy[1];
  sample.contacts = d->ncon;
  if (controller_) controller_->write_outputs(m, d, state_time_s(steps_), sample.controller);
}

void MujocoBackend::write_outputs(double back, std::span<double> outputs) const {
  namespace out = mujoco_output;
  const auto between = [&](double latest, double previous) { return latest - back * (latest - previous); };
  outputs[out::kContacts] = back < 0.5 ? latest_.contacts : previous_.contacts;  // the nearer state's count
  outputs[out::kKinetic] = between(latest_.kinetic_J, previous_.kinetic_J);
  outputs[out::kPotential] = between(latest_.potential_J, previous_.potential_J);
  outputs[out::kTotal] = outputs[out::kKinetic] + outputs[out::kPotential];
  for (std::size_t c = 0; c < latest_.controller.size(); ++c) {
    outputs[out::kCount + c] = between(latest_.controller[c], previous_.controller[c]);
  }
}

std::filesystem::path mujoco_model_scene(const Params& params) {
  if (params.get_text("model") == kDefaultModel) return {};  // scenes/pendulum draws it, on a stand
  return params.input_file("model", "model file", &scene::input_file_candidates);
}

double mujoco_natural_duration_s(const Params& params) {
  // Without a reference nothing says how long the model's motion is: a stated default.
  constexpr double kWithoutReference_s = 10.0;
  if (params.get_text("trajectory").empty()) return kWithoutReference_s;
  const fs::path file = params.input_file("trajectory", "reference CSV", &scene::input_file_candidates);
  const std::vector<double> times_s =
      read_time_table(file, kMaxReferenceCsvBytes, "<joint or actuator>", 1).times_s;
  // A run starts at 0 and the reference is held after its last row: it lasts until then.
  return times_s.back() > 0.0 ? times_s.back() : kWithoutReference_s;
}

}  // namespace cosim::dynamics::mujoco
