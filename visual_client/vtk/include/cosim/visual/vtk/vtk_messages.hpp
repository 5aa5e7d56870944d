#pragma once
/// \file
/// VTK's error and warning output, routed away from raw stderr: every cosim error is one line.

#include <functional>
#include <string>
#include <string_view>

namespace cosim::visual {

/// Replaces VTK's output window: warnings and errors (reduced to their message line) go to
/// `sink` (e.g. the event log), never straight to stderr. Call once, early in main().
void route_vtk_messages(std::function<void(std::string_view)> sink);

/// While alive, VTK errors raised on this thread are collected here instead of the sink
/// (to turn a reader's failure into one message of ours).
class VtkErrorCapture {
 public:
  VtkErrorCapture();
  ~VtkErrorCapture();
  VtkErrorCapture(const VtkErrorCapture&) = delete;
  VtkErrorCapture& operator=(const VtkErrorCapture&) = delete;
  bool had_error() const { return !first_error_.empty(); }
  const std::string& first_error() const { return first_error_; }
  void add(std::string_view message);

 private:
  VtkErrorCapture* previous_;
  std::string first_error_;
};

/// "ERROR: In file.cxx, line 1\nvtkSTLReader (0x55..): message\n" -> "message".
std::string vtk_message_line(std::string_view text);

}  // namespace cosim::visual
