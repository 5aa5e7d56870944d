#pragma once
// Element-wise N_Vector and dense-matrix operations for IDA, compiled with the project.
// Debian's SUNDIALS 6.4 libraries are built without optimisation (-O0), and IDA spends most
// of its own time in these loops; the serial vectors keep their layout, only the function
// pointers of their ops table change (IDA's clones copy the table).

#include <nvector/nvector_serial.h>
#include <sundials/sundials_matrix.h>

namespace cosim::dae::detail {

/// Replaces the ops IDA uses (linear sum and combinations, scaling, norms, ...) of a serial
/// vector by equivalents with the same semantics.
void use_fast_serial_ops(N_Vector v);

/// Replaces SUNMatZero of a dense matrix by a plain fill.
void use_fast_dense_zero(SUNMatrix a);

}  // namespace cosim::dae::detail
