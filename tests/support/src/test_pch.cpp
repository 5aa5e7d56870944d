// The object the shared precompiled header of the test executables is built with
// (cmake/cosim_add_test.cmake); it has no code of its own.
