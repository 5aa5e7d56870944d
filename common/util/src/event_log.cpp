#include "cosim/util/event_log.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "cosim/platform/output_file.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/util/text.hpp"

namespace cosim::util {

EventLog::EventLog(std::string program, const std::filesystem::path& path, bool echo_info_to_stderr)
    : program_(std::move(program)), echo_(echo_info_to_stderr), start_(std::chrono::steady_clock::now()) {
  if (!path.empty()) {
    file_ = platform::open_file(path, "ab");
    if (file_ == nullptr) {
      throw OutputError(platform::utf8(path) + ": cannot create the log: " +
                        platform::error_text({errno, std::generic_category()}));
    }
  }
}

EventLog::~EventLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void EventLog::info(std::string_view message) { write("info", message, echo_); }
void EventLog::warn(std::string_view message) { write("warning", message, true); }
void EventLog::error(std::string_view message) { write("error", message, true); }

void EventLog::secret(std::string_view raw_message) {
  const std::string message = printable(raw_message, kMaxEventChars);
  std::lock_guard lock(mutex_);
  std::fprintf(stderr, "%s: %.*s\n", program_.c_str(), static_cast<int>(message.size()), message.data());
}

void EventLog::write(std::string_view level, std::string_view raw_message, bool to_stderr) {
  // One event, one line: whatever a message carries (a peer's words included) cannot forge
  // another line or reach the terminal as control characters.
  const std::string message = printable(raw_message, kMaxEventChars);
  const double t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::lock_guard lock(mutex_);
  if (file_ != nullptr) {
    std::fprintf(file_, "[%10.6f s] %.*s: %.*s\n", t_s, static_cast<int>(level.size()), level.data(),
                 static_cast<int>(message.size()), message.data());
    std::fflush(file_);
  }
  if (to_stderr) {
    if (level == "info") {
      std::fprintf(stderr, "%s: %.*s\n", program_.c_str(), static_cast<int>(message.size()), message.data());
    } else {
      std::fprintf(stderr, "%s: %.*s: %.*s\n", program_.c_str(), static_cast<int>(level.size()), level.data(),
                   static_cast<int>(message.size()), message.data());
    }
  }
}

}  // namespace cosim::util
