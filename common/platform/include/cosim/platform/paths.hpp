#pragma once
/// \file
/// Paths at the program's boundaries: UTF-8 text in messages, files and arguments; the
/// running executable; private temp folders; who the user is, for per-user default names.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace cosim::platform {

/// `path` as UTF-8 text (on Windows path::string() would use the ANSI code page).
std::string utf8(const std::filesystem::path& path);

/// The path named by UTF-8 text.
std::filesystem::path path_from_utf8(std::string_view text);

/// True when `path` itself is a symbolic link (not followed; false when nothing is there).
/// For outputs written by another library or program (VTK's writers, ffmpeg) that open by
/// name: checked just before, as OutputFile and open_file refuse a link themselves.
bool is_link(const std::filesystem::path& path) noexcept;

/// Writes `text` to `<path>.partial` and renames it over `path`: a reader never sees half a
/// file, and a failed write leaves the old one (and no partial file). A stale partial file,
/// or a link left in its place, is removed first, never written through. The error, or none.
std::error_code replace_file(const std::filesystem::path& path, std::string_view text);

/// The running executable, or an empty path if the system cannot say.
std::filesystem::path executable_path();

/// The first executable called `name` in the folders of PATH (on Windows `name.exe` too,
/// folders separated by ';'), or nullopt.
std::optional<std::filesystem::path> find_program(std::string_view name);

/// Creates a new folder only this user can use, named `<prefix>XXXXXX` in the system's temp
/// folder ($TMPDIR or /tmp; %TEMP%). Throws std::system_error naming it.
std::filesystem::path make_private_temp_dir(std::string_view prefix);

/// This user's cache folder for cosim (not created here): $COSIM_CACHE_DIR if set, else
/// $XDG_CACHE_HOME/cosim, else $HOME/.cache/cosim (on Windows %LOCALAPPDATA%\cosim); the temp
/// folder's cosim-cache-<user_tag()> when none of them is set.
std::filesystem::path user_cache_dir();

/// A short tag for per-user default names: the effective uid on POSIX ("1000"), the user
/// name on Windows (letters, digits, '-', '_' and '.' kept, others as '_').
std::string user_tag();

}  // namespace cosim::platform
