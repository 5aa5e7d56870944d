#pragma once
/// \file
/// Video output: raw RGB frames piped to the `ffmpeg` program (H.264 in MP4), or, when
/// ffmpeg is not on PATH, VTK's Ogg Theora writer (DESIGN.md "User interface conventions":
/// Debian's VTK has no FFMPEG writer).

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <vtkSmartPointer.h>

class vtkImageData;
class vtkOggTheoraWriter;

namespace cosim::platform {
class Process;
}

namespace cosim::visual {

/// RGBA rows bottom-up (width*height*4 bytes, even sizes, alpha ignored) -> planar YUV
/// 4:2:0 top-down (width*height*3/2 bytes), BT.709 limited range as tagged in the MP4.
void rgba_bottom_up_to_yuv420(const std::uint8_t* rgba, int width, int height, std::uint8_t* yuv);

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
///
/// With ffmpeg, a writer thread feeds the pipe from a ring of kBuffers preallocated frames,
/// so that rendering goes on while ffmpeg takes the previous frame; write() waits when the
/// ring is full (backpressure, never an unbounded queue).
class VideoEncoder {
 public:
  explicit VideoEncoder(const VideoOptions& options);
  ~VideoEncoder();  ///< finishes the file if finish() was not called (errors ignored)
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  static constexpr std::size_t kBuffers = 3;

  /// One frame: width*height RGBA pixels (4 bytes), rows bottom-up (as OpenGL reads
  /// them; RGBA is the framebuffer's own layout, so the cheapest read). Copies it; the
  /// caller may reuse its buffer at once.
  void write(std::span<const std::uint8_t> rgba_bottom_up);
  /// Closes the stream, waits for the encoder and checks that it succeeded.
  void finish();

  /// The file actually written (the .ogv name under the fallback).
  const std::filesystem::path& file() const { return file_; }
  bool uses_ffmpeg() const { return ffmpeg_used_; }
  std::uint64_t frames_written() const { return frames_; }

 private:
  void start_ffmpeg(const std::filesystem::path& ffmpeg);
  std::string ffmpeg_tail() const;
  void writer_loop();
  void stop_writer();
  VideoOptions options_;
  std::filesystem::path file_;
  std::unique_ptr<platform::Process> ffmpeg_;  // running until finish()
  bool ffmpeg_used_ = false;
  bool finished_ = false;
  std::uint64_t frames_ = 0;
  // Ring of frames between write() and the writer thread.
  std::vector<std::vector<std::uint8_t>> ring_;
  std::vector<std::uint8_t> yuv_;  // the writer thread's conversion buffer
  std::size_t head_ = 0, count_ = 0;  // next to send, frames queued
  bool closing_ = false;
  std::exception_ptr writer_error_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread writer_;
  vtkSmartPointer<vtkImageData> image_;  // the fallback's input, reused
  vtkSmartPointer<vtkOggTheoraWriter> ogg_;
};

}  // namespace cosim::visual
