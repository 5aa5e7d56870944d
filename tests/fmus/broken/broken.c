/* Broken FMUs (FMI 3.0 co-simulation) for cosim's error paths, one source built several ways
   (tests/fmus/broken/CMakeLists.txt). The model is a clock: the output Pendulum/swing is the
   time (driving scenes/pendulum's joint, so that the recorder takes that scene) and `steps`
   counts the communication steps taken, so that a test can tell exactly what was stepped
   before the failure. Compile definitions choose how it breaks, at the first step
   that starts at or after the parameter fail_at_s:
     BROKEN_NO_DO_STEP     fmi3DoStep is not exported (an importer must refuse it unloaded);
     BROKEN_STATUS=<2|3|4> doStep returns Discard, Error or Fatal, saying why in the log;
     BROKEN_CRASH          doStep writes through a null pointer (SIGSEGV);
     BROKEN_FIXED_STEP     every step must be exactly STEP_S; another is an Error.
   The binary knows value references 0-3 only: a model description that declares more lies. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

enum { kOK = 0, kError = 3 };
enum { VR_TIME = 0, VR_HAND = 1, VR_STEPS = 2, VR_FAIL_AT = 3 };
#define TOKEN "{cosim-test-broken-3}"
#define STEP_S 0.01

typedef struct {
  double time, steps, fail_at_s;
  void* environment;
  LogMessage log;
} Model;

static void say(Model* model, Status status, const char* message) {
  if (model->log != NULL) model->log(model->environment, status, status == kOK ? "logEvents" : "logStatusError", message);
}

static double* variable(Model* model, uint32_t vr) {
  switch (vr) {
    case VR_TIME: case VR_HAND: return &model->time;
    case VR_STEPS: return &model->steps;
    case VR_FAIL_AT: return &model->fail_at_s;
    default: return NULL;
  }
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
#ifdef BROKEN_NO_DO_STEP
  /* An importer that got here did not look its functions up first: said, and refused. */
  say(model, kError, "instantiated without fmi3DoStep: the importer did not check the functions first");
  free(model);
  return NULL;
#endif
  if (token == NULL || strcmp(token, TOKEN) != 0) {
    say(model, kError, "instantiation token does not match this FMU's");
    free(model);
    return NULL;
  }
  model->fail_at_s = 0.5;
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
  char text[96];
  snprintf(text, sizeof text, "clock ready, failing from t = %g s", model->fail_at_s);
  say(model, kOK, text);
  return kOK;
}

EXPORT Status fmi3Terminate(Instance instance) { (void)instance; return kOK; }

EXPORT Status fmi3GetFloat64(Instance instance, const uint32_t vrs[], size_t n_vrs, double values[], size_t n_values) {
  Model* model = (Model*)instance;
  if (n_values < n_vrs) return kError;
  for (size_t i = 0; i < n_vrs; ++i) {
    const double* v = variable(model, vrs[i]);
    if (v == NULL) {
      char text[96];
      snprintf(text, sizeof text, "no Float64 variable of value reference %u", (unsigned)vrs[i]);
      say(model, kError, text);
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
    if (vrs[i] != VR_FAIL_AT) {
      say(model, kError, "only fail_at_s can be set");
      return kError;
    }
    model->fail_at_s = values[i];
  }
  return kOK;
}

static Status no_such(Instance instance, size_t n_vrs, const char* type) {
  if (n_vrs == 0) return kOK;
  char text[64];
  snprintf(text, sizeof text, "this FMU has no %s variables", type);
  say((Model*)instance, kError, text);
  return kError;
}

EXPORT Status fmi3SetInt32(Instance instance, const uint32_t vrs[], size_t n_vrs, const int32_t values[], size_t n_values) {
  (void)vrs; (void)values; (void)n_values;
  return no_such(instance, n_vrs, "Int32");
}

EXPORT Status fmi3SetBoolean(Instance instance, const uint32_t vrs[], size_t n_vrs, const bool values[], size_t n_values) {
  (void)vrs; (void)values; (void)n_values;
  return no_such(instance, n_vrs, "Boolean");
}

EXPORT Status fmi3SetString(Instance instance, const uint32_t vrs[], size_t n_vrs, const char* const values[],
                            size_t n_values) {
  (void)vrs; (void)values; (void)n_values;
  return no_such(instance, n_vrs, "String");
}

#ifndef BROKEN_NO_DO_STEP
EXPORT Status fmi3DoStep(Instance instance, double t, double h, bool no_set_state, bool* event_handling_needed,
                         bool* terminate, bool* early_return, double* last_successful_time) {
  (void)no_set_state;
  Model* model = (Model*)instance;
  *event_handling_needed = false;
  *terminate = false;
  *early_return = false;
  *last_successful_time = model->time;
  if (!(h > 0) || fabs(t - model->time) > 1e-9 * (1 + fabs(t))) {
    say(model, kError, "doStep from another time than the FMU's, or a step <= 0");
    return kError;
  }
#ifdef BROKEN_FIXED_STEP
  if (fabs(h - STEP_S) > 1e-12) { /* rounding of t0 + k h differences, far below the 1e-3 s steps an importer might send */
    char text[128];
    snprintf(text, sizeof text, "a communication step of %.9g s: this FMU takes steps of exactly %g s", h, STEP_S);
    say(model, kError, text);
    return kError;
  }
#endif
  if (t >= model->fail_at_s - 1e-12) {
#ifdef BROKEN_CRASH
    volatile int* volatile nowhere = NULL; /* volatile both: the compiler neither knows it is null nor drops the store */
    *nowhere = 1;
#endif
#ifdef BROKEN_STATUS
    char text[128]; /* two lines: an importer's error must still be one */
    snprintf(text, sizeof text, "the clock broke at t = %g s\n(step %.0f)", t, model->steps + 1);
    say(model, BROKEN_STATUS, text);
    return BROKEN_STATUS;
#endif
  }
  model->time = t + h;
  model->steps += 1;
  *last_successful_time = model->time;
  return kOK;
}
#endif
