// detail::move_off_cpu and detail::cpu_of_process (common/wire/src/ready_wait.hpp): what the
// FIFO and shm channels do after a spin that missed on the peer's CPU. Linux only.
#include "ready_wait.hpp"

#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <cstdlib>

namespace cosim::wire::detail {
namespace {

cpu_set_t affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  return set;
}

TEST(CpuPlacement, TheCpuOfAProcessIsWhereItRuns) {
  // The scheduler may move us between the two reads: one agreement in a few tries is the fact.
  bool agreed = false;
  for (int i = 0; i < 20 && !agreed; ++i) agreed = cpu_of_process(::getpid()) == ::sched_getcpu();
  EXPECT_TRUE(agreed);
  EXPECT_EQ(cpu_of_process(0), -1);
  EXPECT_EQ(cpu_of_process(0x7ffffff0), -1);  // above pid_max: no such process
}

TEST(CpuPlacement, ASpinnerOnThePeersCpuMovesOffItAndKeepsItsAffinity) {
  const cpu_set_t before = affinity();
  if (CPU_COUNT(&before) < 2) GTEST_SKIP() << "this process may use one CPU only: there is nowhere to move";
  ASSERT_EQ(std::getenv("COSIM_MOVE"), nullptr) << "COSIM_MOVE is set: the move is switched off";
  const int here = ::sched_getcpu();
  move_off_cpu(here);
  EXPECT_NE(::sched_getcpu(), here) << "the move leaves the CPU at once (sched_setaffinity migrates the caller)";
  const cpu_set_t after = affinity();
  EXPECT_TRUE(CPU_EQUAL(&before, &after)) << "the affinity is restored after the move";
}

TEST(CpuPlacement, NothingMovesWhenThePeerIsElsewhereOrUnknown) {
  const int here = ::sched_getcpu();
  move_off_cpu(-1);
  move_off_cpu(here + 1);  // not our CPU (whether or not it exists)
  // Nothing asked us to move, but the scheduler still may: only the affinity is ours to check.
  const cpu_set_t now = affinity();
  EXPECT_TRUE(CPU_ISSET(here, &now));
}

}  // namespace
}  // namespace cosim::wire::detail
