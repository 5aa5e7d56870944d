#include "cosim/dynamics/backend.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "cosim/dynamics/format_number.hpp"
#include "cosim/util/text.hpp"

namespace cosim::dynamics {
namespace {

// Returns the first duplicate name, or nullptr.
const std::string* first_duplicate(const std::vector<std::string>& names) {
  std::unordered_set<std::string_view> seen;
  for (const auto& name : names) {
    if (!seen.insert(name).second) return &name;
  }
  return nullptr;
}

}  // namespace

Backend::Backend(std::string name, std::string model_name, std::vector<std::string> joint_names,
                 std::vector<std::string> output_names, double t0_s)
    : name_(std::move(name)),
      model_name_(std::move(model_name)),
      joint_names_(std::move(joint_names)),
      joint_kinds_(joint_names_.size(), JointKind::unknown),
      output_names_(std::move(output_names)),
      time_s_(t0_s),
      joint_values_(joint_names_.size(), 0.0),
      outputs_(output_names_.size(), std::numeric_limits<double>::quiet_NaN()) {
  if (joint_names_.empty()) {
    throw std::invalid_argument("backend " + name_ + ": declares no joints");
  }
  if (const auto* dup = first_duplicate(joint_names_)) {
    throw std::invalid_argument("backend " + name_ + ": joint '" + *dup + "' declared twice");
  }
  if (const auto* dup = first_duplicate(output_names_)) {
    throw std::invalid_argument("backend " + name_ + ": output '" + *dup + "' declared twice");
  }
  if (!std::isfinite(t0_s)) {
    throw std::invalid_argument("backend " + name_ + ": start time t0_s = " +
                                format_number(t0_s) + " is not finite");
  }
}

const char* joint_kind_name(JointKind kind) {
  switch (kind) {
    case JointKind::revolute:
      return "revolute";
    case JointKind::prismatic:
      return "prismatic";
    case JointKind::unknown:
      break;
  }
  return "unknown";
}

void Backend::set_joint_kinds(std::vector<JointKind> kinds) {
  if (kinds.size() != joint_names_.size()) {
    throw std::invalid_argument("backend " + name_ + ": " + std::to_string(kinds.size()) + " joint kinds for " +
                                std::to_string(joint_names_.size()) + " joints");
  }
  joint_kinds_ = std::move(kinds);
}

std::size_t Backend::joint_index(std::string_view joint_name) const {
  for (std::size_t i = 0; i < joint_names_.size(); ++i) {
    if (joint_names_[i] == joint_name) return i;
  }
  throw std::out_of_range("backend " + name_ + " has no joint '" + std::string(joint_name) +
                          "'; joints: " + util::join(joint_names_));
}

std::size_t Backend::output_index(std::string_view output_name) const {
  for (std::size_t i = 0; i < output_names_.size(); ++i) {
    if (output_names_[i] == output_name) return i;
  }
  throw std::out_of_range("backend " + name_ + " has no output '" + std::string(output_name) +
                          "'; outputs: " + util::join(output_names_));
}

void Backend::advance_to(double t_s) {
  // Checked entry point: every backend gets the time and finiteness checks (STYLE 1).
  if (!std::isfinite(t_s) || !(t_s > time_s_)) {
    throw std::invalid_argument("backend " + name_ + ": advance_to(t_s = " + format_number(t_s) +
                                ") needs a finite time later than time_s() = " +
                                format_number(time_s_));
  }
  const double t_from_s = time_s_;
  do_advance_to(t_s, joint_values_, outputs_);
  time_s_ = t_s;
  check_finite(t_from_s);
}

void Backend::set_message_sink(MessageSink sink) {
  message_sink_ = std::move(sink);
  if (!message_sink_) return;
  for (const std::string& line : kept_messages_) message_sink_(line);
  if (dropped_messages_ > 0) message_sink_(std::to_string(dropped_messages_) + " more lines of the model's not kept");
  kept_messages_.clear();
  dropped_messages_ = 0;
}

void Backend::say(std::string line) {
  if (message_sink_) {
    message_sink_(line);
  } else if (kept_messages_.size() < kKeptMessages) {
    kept_messages_.push_back(std::move(line));
  } else {
    ++dropped_messages_;
  }
}

void Backend::throw_if_interrupted(double t_s) const {
  if (interrupt_check_ != nullptr && interrupt_check_()) {
    throw util::InterruptedError("interrupted by a signal inside backend " + name_ + "'s step, at t = " +
                                 format_number(t_s) + " s of the model");
  }
}

void Backend::check_finite(double t_from_s) const {
  for (std::size_t i = 0; i < joint_values_.size(); ++i) {
    if (!std::isfinite(joint_values_[i])) {
      throw BackendError("backend " + name_ + ": joint '" + joint_names_[i] + "' = " +
                         format_number(joint_values_[i]) + " at t_s = " + format_number(time_s_) +
                         " (advancing from " + format_number(t_from_s) + ")");
    }
  }
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    if (!std::isfinite(outputs_[i])) {
      throw BackendError("backend " + name_ + ": output '" + output_names_[i] + "' = " +
                         format_number(outputs_[i]) + " at t_s = " + format_number(time_s_) +
                         " (advancing from " + format_number(t_from_s) + ")");
    }
  }
}

}  // namespace cosim::dynamics
