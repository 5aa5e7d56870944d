#include "cosim/visual/vtk/video_encoder.hpp"

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

#include "cosim/platform/output_file.hpp"
#include "cosim/platform/paths.hpp"
#include "cosim/platform/process.hpp"
#include "cosim/util/errors.hpp"
#include "cosim/visual/vtk/vtk_messages.hpp"


namespace cosim::visual {

namespace {

std::string format_fps(double fps) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", fps);
  return text;
}

}  // namespace

void rgba_bottom_up_to_yuv420(const std::uint8_t* rgba, int width, int height, std::uint8_t* yuv) {
  // BT.709, limited range, 8-bit integer coefficients (x 256, each row summing to 0 for
  // chroma so that greys stay neutral); chroma of each 2x2 block
  // from its mean colour. Output rows top-down, so the image is flipped on the way.
  const std::size_t w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
  std::uint8_t* Y = yuv;
  std::uint8_t* U = yuv + w * h;
  std::uint8_t* V = U + (w / 2) * (h / 2);
  const auto luma = [](int r, int g, int b) { return static_cast<std::uint8_t>(16 + ((47 * r + 157 * g + 16 * b + 128) >> 8)); };
  for (std::size_t row = 0; row < h; row += 2) {
    const std::uint8_t* in0 = rgba + (h - 1 - row) * w * 4;  // output row `row`
    const std::uint8_t* in1 = in0 - w * 4;                   // output row `row + 1`
    std::uint8_t* y0 = Y + row * w;
    std::uint8_t* y1 = y0 + w;
    std::uint8_t* u = U + (row / 2) * (w / 2);
    std::uint8_t* v = V + (row / 2) * (w / 2);
    for (std::size_t x = 0; x < w; x += 2) {
      const std::uint8_t* a = in0 + 4 * x;
      const std::uint8_t* b = in1 + 4 * x;
      y0[x] = luma(a[0], a[1], a[2]);
      y0[x + 1] = luma(a[4], a[5], a[6]);
      y1[x] = luma(b[0], b[1], b[2]);
      y1[x + 1] = luma(b[4], b[5], b[6]);
      const int r = (a[0] + a[4] + b[0] + b[4] + 2) >> 2;
      const int g = (a[1] + a[5] + b[1] + b[5] + 2) >> 2;
      const int bl = (a[2] + a[6] + b[2] + b[6] + 2) >> 2;
      u[x / 2] = static_cast<std::uint8_t>(128 + ((-26 * r - 87 * g + 113 * bl + 128) >> 8));
      v[x / 2] = static_cast<std::uint8_t>(128 + ((112 * r - 102 * g - 10 * bl + 128) >> 8));
    }
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
  // ffmpeg and VTK's writer open the file by name and would follow a link planted there.
  const auto refuse_link = [](const std::filesystem::path& file) {
    if (platform::is_link(file)) {
      throw util::BadInputError("--video " + platform::utf8(file) + ": a symbolic link (cosim writes no file through a link)");
    }
  };
  const auto ffmpeg = options_.ffmpeg.empty() ? platform::find_program("ffmpeg") : std::optional(options_.ffmpeg);
  if (ffmpeg) {
    refuse_link(file_);
    start_ffmpeg(*ffmpeg);
    return;
  }
  // Fallback: VTK's Ogg Theora writer, same pixels.
  file_.replace_extension(".ogv");
  refuse_link(file_);
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
  const std::filesystem::path log = options_.ffmpeg_log.empty()
                                        ? platform::path_from_utf8(platform::utf8(file_) + ".ffmpeg.log")
                                        : options_.ffmpeg_log;
  options_.ffmpeg_log = log;
  const std::string size = std::to_string(options_.width) + "x" + std::to_string(options_.height);
  // Frames go in as YUV 4:2:0 (BT.709, converted by the writer thread): ffmpeg's own
  // rgb24 -> yuv420p conversion took more CPU than x264 itself. ultrafast: ~4 ms of CPU per
  // 720p frame against ~14 (veryfast) and more (default). On 2 cores shared with software
  // rendering, both decide whether a coupled 30 fps run keeps up (bench/render).
  const std::vector<std::string> args{"-hide_banner", "-loglevel", "error", "-nostats",
                                      "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", size, "-r", format_fps(options_.fps),
                                      "-i", "-", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                                      "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                                      "-color_range", "tv", "-y", platform::utf8(file_)};
  // Its own process group: a Ctrl-C on the terminal reaches us, and we end the video
  // cleanly. Its messages (stdout and stderr) go to the log.
  platform::ProcessOptions how;
  how.stdout_file = how.stderr_file = platform::utf8(log);
  how.own_process_group = true;
  how.stdin_pipe = true;
  try {
    ffmpeg_ = std::make_unique<platform::Process>(platform::utf8(ffmpeg), args, how);
  } catch (const platform::ProcessStartError& e) {
    throw util::BadInputError(e.what());
  }
  ffmpeg_used_ = true;
  const std::size_t frame_bytes = static_cast<std::size_t>(options_.width) * options_.height * 4;
  ring_.assign(kBuffers, std::vector<std::uint8_t>(frame_bytes));
  yuv_.resize(static_cast<std::size_t>(options_.width) * options_.height * 3 / 2);
  writer_ = std::thread([this] { writer_loop(); });
}

void VideoEncoder::writer_loop() {
  while (true) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return count_ > 0 || closing_; });
    if (count_ == 0) return;  // closing and drained
    const std::vector<std::uint8_t>& frame = ring_[head_];
    lock.unlock();
    // The slot stays ours until count_ drops: write() never touches a queued frame.
    rgba_bottom_up_to_yuv420(frame.data(), options_.width, options_.height, yuv_.data());
    const std::error_code error = ffmpeg_->write_stdin(std::as_bytes(std::span(yuv_)));
    lock.lock();
    if (error) {
      writer_error_ = std::make_exception_ptr(util::BadInputError("ffmpeg stopped taking frames for " +
                                                                  platform::utf8(file_) + " (" +
                                                                  platform::error_text(error) + "): " + ffmpeg_tail()));
      count_ = 0;
      closing_ = true;
      changed_.notify_all();
      return;
    }
    head_ = (head_ + 1) % ring_.size();
    --count_;
    changed_.notify_all();
  }
}

void VideoEncoder::stop_writer() {
  if (!writer_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    changed_.notify_all();
  }
  writer_.join();
}

std::string VideoEncoder::ffmpeg_tail() const {
  std::ifstream in(options_.ffmpeg_log);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last.empty() ? "no message (see " + options_.ffmpeg_log.string() + ")" : last;
}

void VideoEncoder::write(std::span<const std::uint8_t> rgba) {
  const std::size_t expected = static_cast<std::size_t>(options_.width) * options_.height * 4;
  if (rgba.size() != expected) {
    throw std::invalid_argument("video frame has " + std::to_string(rgba.size()) + " bytes, expected " +
                                std::to_string(expected));
  }
  if (writer_.joinable()) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return count_ < ring_.size() || writer_error_; });
    if (writer_error_) std::rethrow_exception(writer_error_);
    // The free slot is invisible to the writer until count_ grows: copy it unlocked.
    std::uint8_t* slot = ring_[(head_ + count_) % ring_.size()].data();
    lock.unlock();
    std::memcpy(slot, rgba.data(), rgba.size());
    lock.lock();
    ++count_;
    changed_.notify_all();
  } else if (ogg_) {
    // The Theora writer takes RGB.
    auto* scalars = vtkUnsignedCharArray::SafeDownCast(image_->GetPointData()->GetScalars());
    std::uint8_t* out = scalars->GetPointer(0);
    for (std::size_t i = 0, n = rgba.size() / 4; i < n; ++i) std::memcpy(out + 3 * i, rgba.data() + 4 * i, 3);
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
  if (!ffmpeg_) return;
  stop_writer();           // sends what is queued
  ffmpeg_->close_stdin();  // EOF: ffmpeg flushes and writes the MP4 index
  const int code = ffmpeg_->wait();
  ffmpeg_.reset();
  if (writer_error_) std::rethrow_exception(writer_error_);
  if (code != 0) {
    throw util::BadInputError("ffmpeg failed writing " + platform::utf8(file_) + " (exit " + std::to_string(code) +
                              (code > 128 ? ", signal " + std::to_string(code - 128) : "") + "): " + ffmpeg_tail());
  }
  // Keep ffmpeg's messages only when there are any.
  std::error_code ec;
  if (std::filesystem::file_size(options_.ffmpeg_log, ec) == 0 || options_.ffmpeg_log.string() == file_.string() + ".ffmpeg.log") {
    std::filesystem::remove(options_.ffmpeg_log, ec);
  }
}

VideoEncoder::~VideoEncoder() {
  try {
    finish();
  } catch (...) {
  }
}

}  // namespace cosim::visual
