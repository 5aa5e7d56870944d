#pragma once
/// \file
/// Shared by the fuzz targets: the rule that turns anything but a documented error into a
/// crash libFuzzer reports, a scratch folder per process, and the canonical bytes of an
/// Envelope for comparisons.
///
/// Each target catches the exceptions its API documents (and checks their message format);
/// guarded() turns every other exception escaping the target into an abort that names its
/// type, so libFuzzer saves the input as a crash. Sanitizer reports abort by themselves.

#include <cxxabi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <typeinfo>

namespace cosim::fuzz {

/// Prints "cosim fuzz: <message>" on stderr and aborts: libFuzzer saves the input as a crash.
[[noreturn]] inline void fail(std::string_view message) {
  std::fprintf(stderr, "cosim fuzz: %.*s\n", static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
  std::abort();
}

/// fail(message) unless `ok`: an invariant the API documents does not hold.
inline void check(bool ok, std::string_view message) {
  if (!ok) fail(message);
}

/// Readable name of an exception's dynamic type.
inline std::string type_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status),
                                              &std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(type.name());
}

/// Runs one input through `body` (which catches the documented errors itself); any exception
/// that escapes is undocumented and fails the input. Returns 0 for LLVMFuzzerTestOneInput.
template <class Body>
int guarded(Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    fail("undocumented exception " + type_name(typeid(e)) + ": " + e.what());
  } catch (...) {
    fail("undocumented exception of a type not derived from std::exception");
  }
  return 0;
}

/// A folder of this process's own under $TMPDIR (or /tmp), removed at a normal exit: the
/// targets write their input there, so parallel fuzzers never share a file. Left behind when
/// the process dies on a crash (scripts/fuzz.sh gives each target a TMPDIR it removes).
class ScratchDir {
 public:
  explicit ScratchDir(std::string_view tag) {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string templ = (base / ("cosim-fuzz-" + std::string(tag) + "-XXXXXX")).string();
    if (::mkdtemp(templ.data()) == nullptr) fail("cannot create a scratch folder " + templ);
    path_ = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Writes `bytes` to `path` (created or truncated). A failure here is the machine's, not the
/// input's, but it must not pass silently either.
inline void write_file(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) fail("cannot create " + path.string());
  const bool ok = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !ok) fail("cannot write " + path.string());
}

/// True if `text` starts with `prefix`.
inline bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace cosim::fuzz
