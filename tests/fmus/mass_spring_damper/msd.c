/* A mass-spring-damper as an FMI 3.0 co-simulation FMU, written for cosim's tests (not from any
   other FMU): m x'' = -k x - c x' + F, integrated by classical Runge-Kutta at a fixed internal
   step of 1e-4 s (a communication step is cut into equal steps no longer than that), so that
   an importer's result can be compared with the closed form of the damped oscillator. */
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

typedef void* Instance;
typedef int Status; /* fmi3Status: OK 0, Warning 1, Discard 2, Error 3, Fatal 4 */
typedef void (*LogMessage)(void* environment, Status status, const char* category, const char* message);

enum { kOK = 0, kDiscard = 2, kError = 3 };
enum { VR_TIME = 0, VR_X = 1, VR_M = 2, VR_K = 3, VR_C = 4, VR_V = 5, VR_F = 6 };
#define TOKEN "{cosim-test-msd-3}"
#define MAX_STEP 1e-4

typedef struct {
  double time, x, v, m, k, c, f;
  void* environment;
  LogMessage log;
} Model;

static void say(Model* model, Status status, const char* message) {
  if (model->log != NULL) model->log(model->environment, status, "logStatusError", message);
}

static double* variable(Model* model, uint32_t vr) {
  switch (vr) {
    case VR_TIME: return &model->time;
    case VR_X: return &model->x;
    case VR_M: return &model->m;
    case VR_K: return &model->k;
    case VR_C: return &model->c;
    case VR_V: return &model->v;
    case VR_F: return &model->f;
    default: return NULL;
  }
}

static void derivatives(const Model* model, double x, double v, double* dx, double* dv) {
  *dx = v;
  *dv = (-model->k * x - model->c * v + model->f) / model->m;
}

EXPORT const char* fmi3GetVersion(void) { return "3.0"; }

EXPORT Instance fmi3InstantiateCoSimulation(const char* name, const char* token, const char* resources, bool visible,
                                            bool logging_on, bool event_mode_used, bool early_return_allowed,
                                            const uint32_t required[], size_t n_required, void* environment,
                                            LogMessage log, void* intermediate_update) {
  (void)name; (void)resources; (void)visible; (void)logging_on; (void)event_mode_used; (void)early_return_allowed;
  (void)required; (void)n_required; (void)intermediate_update;
  Model* model = (Model*)calloc(1, sizeof(Model));
  if (model == NULL) return NULL;
  model->environment = environment;
  model->log = log;
  if (token == NULL || strcmp(token, TOKEN) != 0) {
    say(model, kError, "instantiation token does not match this FMU's");
    free(model);
    return NULL;
  }
  model->x = 0.1;
  model->m = 1.0;
  model->k = 100.0;
  model->c = 0.4;
  return model;
}

EXPORT void fmi3FreeInstance(Instance instance) { free(instance); }

EXPORT Status fmi3EnterInitializationMode(Instance instance, bool tolerance_defined, double tolerance, double start,
                                          bool stop_defined, double stop) {
  (void)tolerance_defined; (void)tolerance; (void)stop_defined; (void)stop;
  ((Model*)instance)->time = start;
  return kOK;
}

EXPORT Status fmi3ExitInitializationMode(Instance instance) {
  Model* model = (Model*)instance;
  if (!(model->m > 0)) {
    say(model, kError, "the mass m must be > 0");
    return kError;
  }
  return kOK;
}

EXPORT Status fmi3Terminate(Instance instance) { (void)instance; return kOK; }

EXPORT Status fmi3GetFloat64(Instance instance, const uint32_t vrs[], size_t n_vrs, double values[], size_t n_values) {
  Model* model = (Model*)instance;
  if (n_values < n_vrs) return kError;
  for (size_t i = 0; i < n_vrs; ++i) {
    const double* v = variable(model, vrs[i]);
    if (v == NULL) {
      say(model, kError, "no Float64 variable of this value reference");
      return kError;
    }
    values[i] = *v;
  }
  return kOK;
}

EXPORT Status fmi3SetFloat64(Instance instance, const uint32_t vrs[], size_t n_vrs, const double values[], size_t n_values) {
  Model* model = (Model*)instance;
  if (n_values < n_vrs) return kError;
  for (size_t i = 0; i < n_vrs; ++i) {
    double* v = variable(model, vrs[i]);
    if (v == NULL || vrs[i] == VR_TIME) {
      say(model, kError, "no settable Float64 variable of this value reference");
      return kError;
    }
    *v = values[i];
  }
  return kOK;
}

EXPORT Status fmi3SetInt32(Instance instance, const uint32_t vrs[], size_t n_vrs, const int32_t values[], size_t n_values) {
  (void)vrs; (void)values; (void)n_values;
  if (n_vrs == 0) return kOK;
  say((Model*)instance, kError, "this FMU has no Int32 variables");
  return kError;
}

EXPORT Status fmi3SetBoolean(Instance instance, const uint32_t vrs[], size_t n_vrs, const bool values[], size_t n_values) {
  (void)vrs; (void)values; (void)n_values;
  if (n_vrs == 0) return kOK;
  say((Model*)instance, kError, "this FMU has no Boolean variables");
  return kError;
}

EXPORT Status fmi3SetString(Instance instance, const uint32_t vrs[], size_t n_vrs, const char* const values[],
                            size_t n_values) {
  (void)vrs; (void)values; (void)n_values;
  if (n_vrs == 0) return kOK;
  say((Model*)instance, kError, "this FMU has no String variables");
  return kError;
}

EXPORT Status fmi3DoStep(Instance instance, double t, double h, bool no_set_state, bool* event_handling_needed,
                         bool* terminate, bool* early_return, double* last_successful_time) {
  (void)no_set_state;
  Model* model = (Model*)instance;
  *event_handling_needed = false;
  *terminate = false;
  *early_return = false;
  if (!(h > 0) || fabs(t - model->time) > 1e-9 * (1 + fabs(t))) {
    say(model, kError, "doStep from another time than the FMU's, or a step <= 0");
    *last_successful_time = model->time;
    return kError;
  }
  const int n = (int)ceil(h / MAX_STEP - 1e-9);
  const double dt = h / n;
  for (int i = 0; i < n; ++i) {
    double k1x, k1v, k2x, k2v, k3x, k3v, k4x, k4v;
    const double x = model->x, v = model->v;
    derivatives(model, x, v, &k1x, &k1v);
    derivatives(model, x + 0.5 * dt * k1x, v + 0.5 * dt * k1v, &k2x, &k2v);
    derivatives(model, x + 0.5 * dt * k2x, v + 0.5 * dt * k2v, &k3x, &k3v);
    derivatives(model, x + dt * k3x, v + dt * k3v, &k4x, &k4v);
    model->x = x + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    model->v = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
  }
  model->time = t + h;
  *last_successful_time = model->time;
  if (!isfinite(model->x) || !isfinite(model->v)) {
    say(model, kDiscard, "the state is no longer finite");
    return kDiscard;
  }
  return kOK;
}
