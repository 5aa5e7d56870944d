#pragma once
// The Robotino in MuJoCo for its tests: the committed model, the robotino parameters it was
// generated from, MuJoCo's own model and data of a file, and the lowest roller vertex of a wheel.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "cosim/dynamics/params.hpp"
#include "cosim/dynamics/robotino/robotino_backend.hpp"
#include "cosim/dynamics/robotino_common/robotino_geometry_params.hpp"
#include "param_error.hpp"

namespace cosim::dynamics {
using robotino_common::robotino_param_specs;


using cosim::test::param_error;

inline const std::string kRobotinoMjcf = std::string(COSIM_SCENES_DIR) + "/robotino/mujoco/robotino.xml";

/// The robotino backend's parameters: defaults, then `overrides` ("key=value").
inline Params default_robotino_params(const std::vector<std::string>& overrides = {}) {
  return Params::resolve("robotino", robotino_param_specs(), nullptr, overrides);
}

/// A model file as MuJoCo loads it, with data at its initial state.
struct MujocoModel {
  std::unique_ptr<mjModel, void (*)(mjModel*)> m{nullptr, &mj_deleteModel};
  std::unique_ptr<mjData, void (*)(mjData*)> d{nullptr, &mj_deleteData};

  static MujocoModel load(const std::string& file) {
    MujocoModel model;
    char error[1000] = "";
    model.m.reset(mj_loadXML(file.c_str(), nullptr, error, sizeof error));
    if (!model.m) ADD_FAILURE() << file << ": " << error;
    if (model.m) model.d.reset(mj_makeData(model.m.get()));
    return model;
  }
};

/// The lowest mesh vertex among the rollers (children) of `wheel_body`: its height [m] and its
/// roller 0..5 (in body order, roller1..roller6). Needs mj_kinematics on `d`.
struct LowestVertex {
  double z_m = std::numeric_limits<double>::infinity();
  int roller = -1;
};

inline LowestVertex lowest_roller_vertex(const mjModel* m, const mjData* d, int wheel_body) {
  LowestVertex lowest;
  int roller = 0;
  for (int b = 0; b < m->nbody; ++b) {
    if (m->body_parentid[b] != wheel_body) continue;
    for (int g = m->body_geomadr[b]; g < m->body_geomadr[b] + m->body_geomnum[b]; ++g) {
      if (m->geom_type[g] != mjGEOM_MESH) continue;
      const int mesh = m->geom_dataid[g];
      const double* pos = d->geom_xpos + 3 * g;
      const double* rot = d->geom_xmat + 9 * g;  // row-major: z row is rot[6..8]
      for (int v = 0; v < m->mesh_vertnum[mesh]; ++v) {
        const float* p = m->mesh_vert + 3 * (m->mesh_vertadr[mesh] + v);
        const double z = pos[2] + rot[6] * p[0] + rot[7] * p[1] + rot[8] * p[2];
        if (z < lowest.z_m) lowest = {z, roller};
      }
    }
    ++roller;
  }
  return lowest;
}

}  // namespace cosim::dynamics
