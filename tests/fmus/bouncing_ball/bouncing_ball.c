/* A bouncing ball as an FMI 2.0 co-simulation FMU, written for cosim's tests: free fall solved
   exactly between impacts and each impact found exactly inside a communication step (the root
   of the height's parabola), the speed then reversed times the restitution e; at rest once the
   launch speed is below 1e-9 m/s. An importer's result can be checked against the geometric
   series of the impact times. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

typedef void* Component;
typedef int Status; /* fmi2Status: OK 0, Warning 1, Discard 2, Error 3, Fatal 4 */
typedef void (*Logger)(void* environment, const char* instance, Status status, const char* category, const char* message,
                       ...);
typedef struct {
  Logger logger;
  void* (*allocate)(size_t, size_t);
  void (*release)(void*);
  void (*step_finished)(void*, Status);
  void* environment;
} Callbacks;

enum { kOK = 0, kError = 3 };
enum { VR_H = 0, VR_V = 1, VR_G = 2, VR_E = 3, VR_BOUNCES = 4 };
#define GUID "{cosim-test-bouncing-ball-2}"

typedef struct {
  double time, h, v, g, e, bounces;
  const Callbacks* callbacks;
} Ball;

static void say(Ball* ball, const char* message) {
  if (ball->callbacks->logger != NULL) {
    ball->callbacks->logger(ball->callbacks->environment, "ball", kError, "logStatusError", "%s", message);
  }
}

static double* variable(Ball* ball, unsigned vr) {
  switch (vr) {
    case VR_H: return &ball->h;
    case VR_V: return &ball->v;
    case VR_G: return &ball->g;
    case VR_E: return &ball->e;
    case VR_BOUNCES: return &ball->bounces;
    default: return NULL;
  }
}

EXPORT Component fmi2Instantiate(const char* name, int type, const char* guid, const char* resources,
                                 const Callbacks* callbacks, int visible, int logging_on) {
  (void)name; (void)resources; (void)visible; (void)logging_on;
  if (callbacks == NULL || callbacks->allocate == NULL) return NULL;
  Ball* ball = (Ball*)callbacks->allocate(1, sizeof(Ball));
  if (ball == NULL) return NULL;
  ball->callbacks = callbacks;
  if (type != 1 || guid == NULL || strcmp(guid, GUID) != 0) {
    say(ball, "not this FMU's guid, or not co-simulation");
    callbacks->release(ball);
    return NULL;
  }
  ball->h = 1;
  ball->g = 9.81;
  ball->e = 0.7;
  return ball;
}

EXPORT void fmi2FreeInstance(Component c) {
  Ball* ball = (Ball*)c;
  if (ball != NULL) ball->callbacks->release(ball);
}

EXPORT Status fmi2SetupExperiment(Component c, int tolerance_defined, double tolerance, double start, int stop_defined,
                                  double stop) {
  (void)tolerance_defined; (void)tolerance; (void)stop_defined; (void)stop;
  ((Ball*)c)->time = start;
  return kOK;
}
EXPORT Status fmi2EnterInitializationMode(Component c) { (void)c; return kOK; }
EXPORT Status fmi2ExitInitializationMode(Component c) {
  Ball* ball = (Ball*)c;
  if (!(ball->g > 0) || !(ball->e >= 0 && ball->e < 1) || !(ball->h >= 0)) {
    say(ball, "needs g > 0, 0 <= e < 1 and h >= 0");
    return kError;
  }
  return kOK;
}
EXPORT Status fmi2Terminate(Component c) { (void)c; return kOK; }

EXPORT Status fmi2GetReal(Component c, const unsigned vrs[], size_t n, double values[]) {
  for (size_t i = 0; i < n; ++i) {
    const double* v = variable((Ball*)c, vrs[i]);
    if (v == NULL) return kError;
    values[i] = *v;
  }
  return kOK;
}
EXPORT Status fmi2SetReal(Component c, const unsigned vrs[], size_t n, const double values[]) {
  for (size_t i = 0; i < n; ++i) {
    double* v = variable((Ball*)c, vrs[i]);
    if (v == NULL || vrs[i] == VR_BOUNCES) return kError;
    *v = values[i];
  }
  return kOK;
}
EXPORT Status fmi2SetInteger(Component c, const unsigned vrs[], size_t n, const int values[]) {
  (void)c; (void)vrs; (void)values;
  return n == 0 ? kOK : kError;
}
EXPORT Status fmi2SetBoolean(Component c, const unsigned vrs[], size_t n, const int values[]) {
  (void)c; (void)vrs; (void)values;
  return n == 0 ? kOK : kError;
}
EXPORT Status fmi2SetString(Component c, const unsigned vrs[], size_t n, const char* const values[]) {
  (void)c; (void)vrs; (void)values;
  return n == 0 ? kOK : kError;
}

EXPORT Status fmi2DoStep(Component c, double t, double step, int no_set_state) {
  (void)no_set_state;
  Ball* ball = (Ball*)c;
  if (!(step > 0) || fabs(t - ball->time) > 1e-9 * (1 + fabs(t))) {
    say(ball, "doStep from another time than the FMU's, or a step <= 0");
    return kError;
  }
  double left = step;
  while (left > 0) {
    if (ball->h <= 0 && ball->v <= 0 && ball->bounces > 0 && -ball->v * ball->e < 1e-9) {
      ball->h = 0;
      ball->v = 0;
      break; /* at rest */
    }
    /* The time until the height is 0 again: the larger root of h + v s - g s^2 / 2. */
    const double impact = (ball->v + sqrt(ball->v * ball->v + 2 * ball->g * ball->h)) / ball->g;
    if (impact > left || impact <= 0) {
      ball->h += ball->v * left - 0.5 * ball->g * left * left;
      ball->v -= ball->g * left;
      if (ball->h < 0) ball->h = 0; /* rounding at a touch-down that is exactly at the step's end */
      break;
    }
    const double speed = ball->g * impact - ball->v; /* downward speed at the impact */
    left -= impact;
    ball->h = 0;
    ball->v = ball->e * speed;
    ball->bounces += 1;
    if (ball->v < 1e-9) {
      ball->v = 0;
      break;
    }
  }
  ball->time = t + step;
  return kOK;
}
