#pragma once
/// \file
/// Same as cosim/scene/scene.hpp (either name may be included).
#include "cosim/scene/scene.hpp"
