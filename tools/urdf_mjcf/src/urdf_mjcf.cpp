// URDF -> MJCF by MuJoCo's importer, with a floating base, a floor, servos (urdf_mjcf.hpp).
#include "cosim/urdf_mjcf/urdf_mjcf.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>


#include <mujoco/mujoco.h>
#include <pugixml.hpp>

#include "cosim/mjcf/mjcf.hpp"
#include "cosim/platform/paths.hpp"

namespace cosim::urdf_mjcf {

namespace fs = std::filesystem;

namespace {

void set_attribute(pugi::xml_node node, const char* name, const std::string& value) {
  pugi::xml_attribute a = node.attribute(name);
  if (!a) a = node.append_attribute(name);
  a.set_value(value.c_str());
}

// The shortest of %.15g, %.16g, %.17g that reads back as `v`.
std::string number_text(double v) {
  char text[32];
  for (const int digits : {15, 16, 17}) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

std::string numbers_text(const double* v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ' ';
    out += number_text(v[i]);
  }
  return out;
}

// MuJoCo's writer keeps 6 significant digits (a quaternion 0.707107 turns a 1 m link by 1e-6):
// the bodies' and joints' frames and the inertials are written again from the compiled model
// in full precision. Bodies and joints come in the file in the model's id order (depth first).
void restore_precision(pugi::xml_node world, const mjModel* m) {
  int body = 0, joint = 0;
  const auto visit = [&](auto&& self, pugi::xml_node node) -> void {
    for (pugi::xml_node child : node.children()) {
      const std::string_view name = child.name();
      if (name == "body") {
        const int b = ++body;  // body 0 is the world
        set_attribute(child, "pos", numbers_text(m->body_pos + 3 * b, 3));
        const mjtNum* q = m->body_quat + 4 * b;
        if (q[0] != 1.0 || child.attribute("quat")) set_attribute(child, "quat", numbers_text(q, 4));
        if (pugi::xml_node inertial = child.child("inertial")) {
          set_attribute(inertial, "pos", numbers_text(m->body_ipos + 3 * b, 3));
          const mjtNum* iq = m->body_iquat + 4 * b;
          if (iq[0] != 1.0 || inertial.attribute("quat")) set_attribute(inertial, "quat", numbers_text(iq, 4));
          set_attribute(inertial, "mass", number_text(m->body_mass[b]));
          set_attribute(inertial, "diaginertia", numbers_text(m->body_inertia + 3 * b, 3));
        }
        self(self, child);
      } else if (name == "joint" && std::string_view(child.attribute("type").value()) != "free") {
        const int j = joint++;
        set_attribute(child, "pos", numbers_text(m->jnt_pos + 3 * j, 3));
        set_attribute(child, "axis", numbers_text(m->jnt_axis + 3 * j, 3));
      }
    }
  };
  visit(visit, world);
}

double positive_number(std::string_view text, const std::string& what, bool zero_allowed) {
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < 0.0 || (!zero_allowed && v == 0.0)) {
    throw ConvertError(what + " '" + s + "' is not a number " + (zero_allowed ? ">= 0" : "> 0"));
  }
  return v;
}

// MuJoCo writes the model it compiled last as MJCF to a file only: one in a private
// temporary folder (mode 0700, a name nobody could have prepared), removed after.
std::string saved_mjcf(const mjModel* m) {
  fs::path folder;
  try {
    folder = platform::make_private_temp_dir("cosim-urdf-mjcf-");
  } catch (const std::system_error& e) {
    throw ConvertError(std::string("cannot make a temporary folder: ") + e.what());
  }
  const fs::path file = folder / "model.xml";
  char error[1000] = "";
  const int ok = mj_saveLastXML(file.string().c_str(), m, error, sizeof error);
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  in.close();
  std::error_code ec;
  fs::remove_all(folder, ec);
  if (!ok || text.str().empty()) throw ConvertError("MuJoCo cannot write the model as MJCF: " + std::string(error));
  return text.str();
}

// Every element named `name` under `node`, depth first.
void collect(pugi::xml_node node, std::string_view name, std::vector<pugi::xml_node>& found) {
  for (pugi::xml_node child : node.children()) {
    if (name == child.name()) found.push_back(child);
    collect(child, name, found);
  }
}

std::string generic_relative(const fs::path& file, const fs::path& folder) {
  if (folder.empty()) return file.generic_string();
  std::error_code ec;
  const fs::path relative = fs::relative(file, folder, ec);
  return ec || relative.empty() ? file.generic_string() : relative.generic_string();
}

}  // namespace

Servo parse_servo(const std::string& text, Servo::Kind kind) {
  const std::string form = kind == Servo::Kind::position ? "JOINT=KP[,DAMPING]" : "JOINT=KV";
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw ConvertError("servo '" + text + "': expected " + form);
  Servo servo;
  servo.joint = text.substr(0, eq);
  servo.kind = kind;
  const std::string values = text.substr(eq + 1);
  const std::size_t comma = values.find(',');
  if (comma != std::string::npos && kind == Servo::Kind::velocity) {
    throw ConvertError("servo '" + text + "': expected " + form);
  }
  servo.gain = positive_number(values.substr(0, comma), "servo '" + text + "': gain", false);
  if (comma != std::string::npos) {
    servo.damping = positive_number(values.substr(comma + 1), "servo '" + text + "': damping", true);
  }
  return servo;
}

std::string urdf_to_mjcf(const fs::path& urdf_file, const Options& options, std::vector<std::string>* notes) {
  if (options.timestep_s && !(*options.timestep_s > 0.0 && std::isfinite(*options.timestep_s))) {
    throw ConvertError("--timestep must be a number > 0");
  }
  for (const double v : options.base_xyz_m) {
    if (!std::isfinite(v)) throw ConvertError("--base-xyz must be three finite numbers");
  }
  const std::string urdf = mjcf::urdf_for_mujoco(urdf_file, {.package_path = options.package_path},
                                                 {.keep_visuals = true, .keep_fixed_links = true, .notes = notes});
  const mjcf::ModelPtr model = mjcf::load_model_text(urdf_file, urdf);
  const std::string saved = saved_mjcf(model.get());

  pugi::xml_document doc;
  if (!doc.load_string(saved.c_str())) throw ConvertError("MuJoCo wrote MJCF that does not parse");
  pugi::xml_node mujoco = doc.child("mujoco");
  pugi::xml_node world = mujoco.child("worldbody");
  restore_precision(world, model.get());

  // Visual geoms (MuJoCo's importer: group 1, no contacts) are drawn; collision geoms are not.
  std::vector<pugi::xml_node> geoms;
  collect(world, "geom", geoms);
  for (pugi::xml_node geom : geoms) {
    if (std::string_view(geom.attribute("group").value()) != "1") set_attribute(geom, "group", "3");
  }
  for (pugi::xml_node mesh : mujoco.child("asset").children("mesh")) {
    set_attribute(mesh, "file", generic_relative(mesh.attribute("file").value(), options.output_folder));
  }

  std::vector<pugi::xml_node> joints;
  collect(world, "joint", joints);
  const auto find_joint = [&](const std::string& name) -> pugi::xml_node {
    for (pugi::xml_node j : joints) {
      if (name == j.attribute("name").value()) return j;
    }
    return {};
  };
  std::vector<pugi::xml_node> roots;
  for (pugi::xml_node body : world.children("body")) roots.push_back(body);
  if (options.floating_base || options.base_xyz_m != std::array<double, 3>{}) {
    if (roots.size() != 1) {
      throw ConvertError(urdf_file.string() + ": " + std::to_string(roots.size()) +
                         " links hang from the world in MuJoCo; a base to place or float must be one");
    }
    set_attribute(roots[0], "pos", number_text(options.base_xyz_m[0]) + " " + number_text(options.base_xyz_m[1]) + " " +
                                       number_text(options.base_xyz_m[2]));
  }
  if (options.floating_base) {
    for (pugi::xml_node j : roots[0].children("joint")) {
      throw ConvertError(urdf_file.string() + ": link '" + std::string(roots[0].attribute("name").value()) +
                         "' already moves on joint '" + j.attribute("name").value() + "'; --floating-base frees a "
                         "root that is welded to the world");
    }
    if (find_joint(kFloatingBaseJoint)) {
      throw ConvertError(urdf_file.string() + ": the URDF has a joint named '" + std::string(kFloatingBaseJoint) + "'");
    }
    pugi::xml_node free = roots[0].insert_child_after("joint", roots[0].child("inertial"));
    if (!free) free = roots[0].prepend_child("joint");
    set_attribute(free, "name", kFloatingBaseJoint);
    set_attribute(free, "type", "free");
  }
  if (options.floor) {
    pugi::xml_node floor = world.prepend_child("geom");
    set_attribute(floor, "name", "floor");
    set_attribute(floor, "type", "plane");
    set_attribute(floor, "size", "0 0 0.05");
    set_attribute(floor, "rgba", "0.82 0.82 0.78 1");
  }
  if (options.timestep_s) {
    pugi::xml_node option = mujoco.child("option");
    if (!option) option = mujoco.insert_child_after("option", mujoco.child("compiler"));
    set_attribute(option, "timestep", number_text(*options.timestep_s));
  }
  if (!options.servos.empty()) {
    pugi::xml_node actuator = mujoco.child("actuator");
    if (!actuator) actuator = mujoco.insert_child_after("actuator", world);
    std::vector<std::string> names;
    for (const Servo& servo : options.servos) {
      const pugi::xml_node joint = find_joint(servo.joint);
      if (!joint || std::string_view(joint.attribute("type").value()) == "free") {
        std::string moving;
        for (pugi::xml_node j : joints) {
          if (std::string_view(j.attribute("type").value()) != "free") {
            moving += (moving.empty() ? "" : ", ") + std::string(j.attribute("name").value());
          }
        }
        throw ConvertError("servo on '" + servo.joint + "': not a revolute, continuous or prismatic joint of " +
                           urdf_file.string() + " (those are: " + (moving.empty() ? "none" : moving) + ")");
      }
      const bool position = servo.kind == Servo::Kind::position;
      const std::string name = servo.joint + (position ? "_position" : "_velocity");
      for (const std::string& n : names) {
        if (n == name) throw ConvertError("two " + std::string(position ? "position" : "velocity") + " servos on '" + servo.joint + "'");
      }
      names.push_back(name);
      pugi::xml_node a = actuator.append_child(position ? "position" : "velocity");
      set_attribute(a, "name", name);
      set_attribute(a, "joint", servo.joint);
      set_attribute(a, position ? "kp" : "kv", number_text(servo.gain));
      if (position && servo.damping > 0.0) set_attribute(joint, "damping", number_text(servo.damping));
    }
  }

  std::ostringstream out;
  out << "<!-- Written by cosim-urdf-mjcf from " << generic_relative(fs::absolute(urdf_file), options.output_folder)
      << " (MuJoCo " << mj_versionString()
      << "'s URDF importer): a model of your own to edit (friction, gains, sensors). Visual geoms are "
         "group 1 (drawn), collision geoms group 3 (simulated, not drawn). -->\n";
  doc.save(out, "  ", pugi::format_default | pugi::format_no_declaration, pugi::encoding_utf8);
  const std::string text = out.str();

  // What is written must load, from where it is written.
  const fs::path folder = options.output_folder.empty() ? fs::absolute(urdf_file).parent_path() : options.output_folder;
  (void)mjcf::load_model_text(folder / (urdf_file.stem().string() + ".xml"), text);
  return text;
}

}  // namespace cosim::urdf_mjcf
