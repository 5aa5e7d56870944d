/* The fmu backend's default model: scenes/pendulum's pendulum as an FMI 3.0 co-simulation FMU,
   written for cosim (the mujoco backend's default model, as a rigid body about its pivot):
   I θ'' = -m g l sin θ - d θ', I and m l from a 1 kg bob at 0.5 m and a uniform 0.1 kg rod of
   0.5 m, classical Runge-Kutta at 1e-4 s inside. The output "Pendulum/swing" is the scene's
   joint by name. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

typedef int Status; /* fmi3Status: OK 0, Warning 1, Discard 2, Error 3, Fatal 4 */
typedef void (*LogMessage)(void* environment, Status status, const char* category, const char* message);
enum { kOK = 0, kDiscard = 2, kError = 3 };
enum { VR_TIME = 0, VR_SWING = 1, VR_RATE = 2, VR_INERTIA = 3, VR_MGL = 4, VR_DAMPING = 5, VR_START = 6 };
#define TOKEN "{cosim-pendulum-fmu-1}"
#define MAX_STEP 1e-4

typedef struct {
  double time, theta, omega, inertia, mgl, damping, start;
  void* environment;
  LogMessage log;
} Pendulum;

static void say(Pendulum* p, Status status, const char* message) {
  if (p->log != NULL) p->log(p->environment, status, "logStatusError", message);
}

static double* variable(Pendulum* p, uint32_t vr) {
  switch (vr) {
    case VR_TIME: return &p->time;
    case VR_SWING: return &p->theta;
    case VR_RATE: return &p->omega;
    case VR_INERTIA: return &p->inertia;
    case VR_MGL: return &p->mgl;
    case VR_DAMPING: return &p->damping;
    case VR_START: return &p->start;
    default: return NULL;
  }
}

static double acceleration(const Pendulum* p, double theta, double omega) {
  return (-p->mgl * sin(theta) - p->damping * omega) / p->inertia;
}

EXPORT const char* fmi3GetVersion(void) { return "3.0"; }

EXPORT void* fmi3InstantiateCoSimulation(const char* name, const char* token, const char* resources, bool visible,
                                         bool logging_on, bool event_mode_used, bool early_return_allowed,
                                         const uint32_t required[], size_t n_required, void* environment,
                                         LogMessage log, void* intermediate_update) {
  (void)name; (void)resources; (void)visible; (void)logging_on; (void)event_mode_used; (void)early_return_allowed;
  (void)required; (void)n_required; (void)intermediate_update;
  Pendulum* p = (Pendulum*)calloc(1, sizeof(Pendulum));
  if (p == NULL) return NULL;
  p->environment = environment;
  p->log = log;
  if (token == NULL || strcmp(token, TOKEN) != 0) {
    say(p, kError, "instantiation token does not match this FMU's");
    free(p);
    return NULL;
  }
  p->inertia = 1.0 * 0.25 + 0.1 * 0.25 / 3; /* bob at 0.5 m, rod about its end [kg m^2] */
  p->mgl = (1.0 * 0.5 + 0.1 * 0.25) * 9.81;  /* [N m] */
  p->start = 0.6;
  p->theta = p->start;
  return p;
}

EXPORT void fmi3FreeInstance(void* instance) { free(instance); }

EXPORT Status fmi3EnterInitializationMode(void* instance, bool tolerance_defined, double tolerance, double start,
                                          bool stop_defined, double stop) {
  (void)tolerance_defined; (void)tolerance; (void)stop_defined; (void)stop;
  ((Pendulum*)instance)->time = start;
  return kOK;
}

EXPORT Status fmi3ExitInitializationMode(void* instance) {
  Pendulum* p = (Pendulum*)instance;
  if (!(p->inertia > 0) || !(p->damping >= 0)) {
    say(p, kError, "needs inertia > 0 and damping >= 0");
    return kError;
  }
  p->theta = p->start;
  p->omega = 0;
  return kOK;
}

EXPORT Status fmi3Terminate(void* instance) { (void)instance; return kOK; }

EXPORT Status fmi3GetFloat64(void* instance, const uint32_t vrs[], size_t n, double values[], size_t n_values) {
  if (n_values < n) return kError;
  for (size_t i = 0; i < n; ++i) {
    const double* v = variable((Pendulum*)instance, vrs[i]);
    if (v == NULL) return kError;
    values[i] = *v;
  }
  return kOK;
}

EXPORT Status fmi3SetFloat64(void* instance, const uint32_t vrs[], size_t n, const double values[], size_t n_values) {
  Pendulum* p = (Pendulum*)instance;
  if (n_values < n) return kError;
  for (size_t i = 0; i < n; ++i) {
    double* v = variable(p, vrs[i]);
    if (v == NULL || vrs[i] == VR_TIME || vrs[i] == VR_SWING || vrs[i] == VR_RATE) {
      say(p, kError, "not a settable variable");
      return kError;
    }
    *v = values[i];
  }
  return kOK;
}

EXPORT Status fmi3SetInt32(void* instance, const uint32_t vrs[], size_t n, const int32_t values[], size_t nv) {
  (void)instance; (void)vrs; (void)values; (void)nv;
  return n == 0 ? kOK : kError;
}
EXPORT Status fmi3SetBoolean(void* instance, const uint32_t vrs[], size_t n, const bool values[], size_t nv) {
  (void)instance; (void)vrs; (void)values; (void)nv;
  return n == 0 ? kOK : kError;
}
EXPORT Status fmi3SetString(void* instance, const uint32_t vrs[], size_t n, const char* const values[], size_t nv) {
  (void)instance; (void)vrs; (void)values; (void)nv;
  return n == 0 ? kOK : kError;
}

EXPORT Status fmi3DoStep(void* instance, double t, double h, bool no_set_state, bool* event_handling_needed,
                         bool* terminate, bool* early_return, double* last_successful_time) {
  (void)no_set_state;
  Pendulum* p = (Pendulum*)instance;
  *event_handling_needed = false;
  *terminate = false;
  *early_return = false;
  *last_successful_time = p->time;
  if (!(h > 0) || fabs(t - p->time) > 1e-9 * (1 + fabs(t))) {
    say(p, kError, "doStep from another time than the FMU's, or a step <= 0");
    return kError;
  }
  const int n = (int)ceil(h / MAX_STEP - 1e-9);
  const double dt = h / n;
  for (int i = 0; i < n; ++i) {
    const double th = p->theta, om = p->omega;
    const double k1t = om, k1o = acceleration(p, th, om);
    const double k2t = om + 0.5 * dt * k1o, k2o = acceleration(p, th + 0.5 * dt * k1t, om + 0.5 * dt * k1o);
    const double k3t = om + 0.5 * dt * k2o, k3o = acceleration(p, th + 0.5 * dt * k2t, om + 0.5 * dt * k2o);
    const double k4t = om + dt * k3o, k4o = acceleration(p, th + dt * k3t, om + dt * k3o);
    p->theta = th + dt / 6 * (k1t + 2 * k2t + 2 * k3t + k4t);
    p->omega = om + dt / 6 * (k1o + 2 * k2o + 2 * k3o + k4o);
  }
  p->time = t + h;
  *last_successful_time = p->time;
  if (!isfinite(p->theta) || !isfinite(p->omega)) {
    say(p, kDiscard, "the state is no longer finite");
    return kDiscard;
  }
  return kOK;
}
