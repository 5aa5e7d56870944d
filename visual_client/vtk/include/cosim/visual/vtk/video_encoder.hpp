#pragma once
/// \file
/// Video output: raw RGB frames piped to the `ffmpeg` program (H.264 in MP4), or, when
/// ffmpeg is not on PATH, VTK's Ogg Theora writer (DESIGN.md "User interface conventions":
/// Debian's VTK has no FFMPEG writer).

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include <vtkSmartPointer.h>

class vtkImageData;
class vtkOggTheoraWriter;

namespace cosim::visual {

/// First executable called `name` on PATH, or nullopt.
std::optional<std::filesystem::path> find_on_path(const std::string& name);

struct VideoOptions {
  std::filesystem::path file;  ///< requested output (.mp4); .ogv is used by the fallback
  int width = 0, height = 0;   ///< [px], even (yuv420p)
  double fps = 30;             ///< frame rate written in the file [1/s]
  /// ffmpeg executable; empty = look for `ffmpeg` on PATH, and fall back to Ogg Theora.
  std::filesystem::path ffmpeg;
  /// ffmpeg's own messages go here (empty: discarded).
  std::filesystem::path ffmpeg_log;
};

/// Writes frames to one video file. Throws util::BadInputError on a bad size, an unwritable
/// file or a failing encoder (with the encoder's last message).
class VideoEncoder {
 public:
  explicit VideoEncoder(const VideoOptions& options);
  ~VideoEncoder();  ///< finishes the file if finish() was not called (errors ignored)
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  /// One frame: width*height RGB bytes, rows bottom-up (as OpenGL reads them).
  void write(std::span<const std::uint8_t> rgb_bottom_up);
  /// Closes the stream, waits for the encoder and checks that it succeeded.
  void finish();

  /// The file actually written (the .ogv name under the fallback).
  const std::filesystem::path& file() const { return file_; }
  bool uses_ffmpeg() const { return pid_ > 0 || ffmpeg_used_; }
  std::uint64_t frames_written() const { return frames_; }

 private:
  void start_ffmpeg(const std::filesystem::path& ffmpeg);
  std::string ffmpeg_tail() const;
  VideoOptions options_;
  std::filesystem::path file_;
  pid_t pid_ = -1;
  int fd_ = -1;
  bool ffmpeg_used_ = false;
  bool finished_ = false;
  std::uint64_t frames_ = 0;
  vtkSmartPointer<vtkImageData> image_;  // the fallback's input, reused
  vtkSmartPointer<vtkOggTheoraWriter> ogg_;
};

}  // namespace cosim::visual
