#include <cosim/wire/errors.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace cosim::wire {
namespace {

constexpr Errc kAll[] = {Errc::peer_closed,     Errc::timeout,        Errc::interrupted,
                         Errc::bad_magic,       Errc::frame_too_large, Errc::malformed_payload,
                         Errc::empty_envelope,  Errc::io_error,       Errc::injected_fault};

TEST(WireErrors, CategoryIsNamedCosimWire) {
  EXPECT_STREQ(wire_category().name(), "cosim.wire");
}

TEST(WireErrors, EveryCodeHasItsOwnShortMessage) {
  std::set<std::string> seen;
  for (const Errc e : kAll) {
    const std::error_code ec = e;  // implicit: is_error_code_enum
    EXPECT_TRUE(ec) << static_cast<int>(e);
    EXPECT_EQ(&ec.category(), &wire_category());
    EXPECT_EQ(ec, make_error_code(e));
    const std::string m = ec.message();
    EXPECT_FALSE(m.empty());
    EXPECT_LT(m.size(), 60u) << m;
    EXPECT_EQ(m.find("unknown"), std::string::npos) << m;
    EXPECT_TRUE(seen.insert(m).second) << "duplicate message: " << m;
  }
}

TEST(WireErrors, ValuesAreStableAndNonZero) {
  // Values may end up in logs; zero would read as success.
  EXPECT_EQ(static_cast<int>(Errc::peer_closed), 1);
  EXPECT_EQ(static_cast<int>(Errc::injected_fault), 9);
  EXPECT_NE(std::error_code(Errc::timeout), std::error_code(Errc::peer_closed));
}

}  // namespace
}  // namespace cosim::wire
