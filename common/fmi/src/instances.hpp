#pragma once
// The two versions' instances, made by instantiate() (instance.cpp).
#include <memory>

#include "cosim/fmi/instance.hpp"

namespace cosim::fmi::detail {

std::unique_ptr<Instance> make_fmi3(const std::filesystem::path& folder, const ModelDescription& md, std::string name,
                                    LogSink log);
std::unique_ptr<Instance> make_fmi2(const std::filesystem::path& folder, const ModelDescription& md, std::string name,
                                    LogSink log);

}  // namespace cosim::fmi::detail
