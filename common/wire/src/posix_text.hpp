#pragma once
// Message pieces of the POSIX channels (FIFO, shm): OS errors, owners and modes as users
// read them (private to cosim::wire).

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <system_error>

namespace cosim::wire::detail {

inline std::string os_error(int err) { return std::system_category().message(err); }

/// "owned by uid 1001, not by this user (uid 1000)".
inline std::string owner_text(const struct stat& st) {
  return "owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " + std::to_string(::geteuid()) + ")";
}

/// A mode as chmod takes it: "0755".
inline std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace cosim::wire::detail
