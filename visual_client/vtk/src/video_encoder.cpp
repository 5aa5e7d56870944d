#include "cosim/visual/vtk/video_encoder.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <vtkImageData.h>
#include <vtkOggTheoraWriter.h>
#include <vtkPointData.h>
#include <vtkUnsignedCharArray.h>

#include "cosim/util/errors.hpp"
#include "cosim/visual/vtk/vtk_messages.hpp"

extern char** environ;

namespace cosim::visual {

namespace {

std::string format_fps(double fps) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", fps);
  return text;
}

}  // namespace

std::optional<std::filesystem::path> find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string_view rest(path);
  while (true) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

VideoEncoder::VideoEncoder(const VideoOptions& options) : options_(options), file_(options.file) {
  if (options_.width <= 0 || options_.height <= 0 || options_.width % 2 != 0 || options_.height % 2 != 0) {
    throw util::BadInputError("video size " + std::to_string(options_.width) + "x" + std::to_string(options_.height) +
                              ": width and height must be even (H.264 4:2:0)");
  }
  if (!(options_.fps > 0)) throw util::BadInputError("video frame rate must be positive");
  if (!file_.parent_path().empty()) {
    std::error_code ec;
    std::filesystem::create_directories(file_.parent_path(), ec);
    if (ec) throw util::BadInputError("--video " + file_.string() + ": cannot create its folder: " + ec.message());
  }
  const auto ffmpeg = options_.ffmpeg.empty() ? find_on_path("ffmpeg") : std::optional(options_.ffmpeg);
  if (ffmpeg) {
    start_ffmpeg(*ffmpeg);
    return;
  }
  // Fallback: VTK's Ogg Theora writer, same pixels.
  file_.replace_extension(".ogv");
  image_ = vtkSmartPointer<vtkImageData>::New();
  image_->SetDimensions(options_.width, options_.height, 1);
  image_->AllocateScalars(VTK_UNSIGNED_CHAR, 3);
  ogg_ = vtkSmartPointer<vtkOggTheoraWriter>::New();
  ogg_->SetInputData(image_);
  ogg_->SetFileName(file_.c_str());
  ogg_->SetRate(std::max(1, static_cast<int>(options_.fps + 0.5)));
  ogg_->SetQuality(2);
  VtkErrorCapture capture;
  ogg_->Start();
  if (capture.had_error() || ogg_->GetError() != 0) {
    throw util::BadInputError("cannot write video " + file_.string() + ": " + capture.first_error());
  }
}

void VideoEncoder::start_ffmpeg(const std::filesystem::path& ffmpeg) {
  // A closed encoder must be an error code from write(), not a SIGPIPE death.
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);

  const std::filesystem::path log =
      options_.ffmpeg_log.empty() ? std::filesystem::path(file_.string() + ".ffmpeg.log") : options_.ffmpeg_log;
  options_.ffmpeg_log = log;
  const std::string size = std::to_string(options_.width) + "x" + std::to_string(options_.height);
  // Rows arrive bottom-up (OpenGL), hence vflip. veryfast: the 2-core budget of a coupled
  // 30 fps run cannot afford x264's default preset at 720p (see bench/render).
  std::vector<std::string> args{ffmpeg.string(), "-hide_banner", "-loglevel", "error", "-nostats",
                                "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", size, "-r", format_fps(options_.fps),
                                "-i", "-", "-vf", "vflip", "-c:v", "libx264", "-preset", "veryfast",
                                "-pix_fmt", "yuv420p", "-y", file_.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw util::BadInputError(std::string("pipe for ffmpeg: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // Nothing else leaks into ffmpeg (the session's FIFOs above all: their EOF is the protocol).
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Own process group: a Ctrl-C on the terminal reaches us, and we end the video cleanly.
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  const int rc = ::posix_spawn(&pid_, ffmpeg.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(fds[0]);
  if (rc != 0) {
    ::close(fds[1]);
    pid_ = -1;
    throw util::BadInputError("cannot start " + ffmpeg.string() + ": " + std::strerror(rc));
  }
  fd_ = fds[1];
  ffmpeg_used_ = true;
}

std::string VideoEncoder::ffmpeg_tail() const {
  std::ifstream in(options_.ffmpeg_log);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last.empty() ? "no message (see " + options_.ffmpeg_log.string() + ")" : last;
}

void VideoEncoder::write(std::span<const std::uint8_t> rgb) {
  const std::size_t expected = static_cast<std::size_t>(options_.width) * options_.height * 3;
  if (rgb.size() != expected) {
    throw std::invalid_argument("video frame has " + std::to_string(rgb.size()) + " bytes, expected " +
                                std::to_string(expected));
  }
  if (fd_ >= 0) {
    const std::uint8_t* data = rgb.data();
    std::size_t left = rgb.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, data, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const std::string why = std::strerror(errno);
        ::close(fd_);
        fd_ = -1;
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        throw util::BadInputError("ffmpeg stopped while writing " + file_.string() + " (" + why + "): " + ffmpeg_tail());
      }
      data += n;
      left -= static_cast<std::size_t>(n);
    }
  } else if (ogg_) {
    auto* scalars = vtkUnsignedCharArray::SafeDownCast(image_->GetPointData()->GetScalars());
    std::memcpy(scalars->GetPointer(0), rgb.data(), rgb.size());
    scalars->Modified();
    image_->Modified();
    ogg_->Write();
  }
  ++frames_;
}

void VideoEncoder::finish() {
  if (finished_) return;
  finished_ = true;
  if (ogg_) {
    ogg_->End();
    return;
  }
  if (pid_ <= 0) return;
  ::close(fd_);  // EOF: ffmpeg flushes and writes the MP4 index
  fd_ = -1;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw util::BadInputError("ffmpeg failed writing " + file_.string() + " (" +
                              (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                                 : "signal " + std::to_string(WTERMSIG(status))) +
                              "): " + ffmpeg_tail());
  }
  std::error_code ec;
  if (options_.ffmpeg_log.string() == file_.string() + ".ffmpeg.log") std::filesystem::remove(options_.ffmpeg_log, ec);
}

VideoEncoder::~VideoEncoder() {
  try {
    finish();
  } catch (...) {
  }
}

}  // namespace cosim::visual
