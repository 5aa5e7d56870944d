#pragma once
// Counts global operator new calls (this test binary replaces operator new) so a test can
// assert that a frame step does not allocate (STYLE 4).

#include <cstddef>

namespace cosim::dynamics::test {

std::size_t allocation_count();

}  // namespace cosim::dynamics::test
