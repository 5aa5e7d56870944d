#include "cosim/visual/vtk/vtk_messages.hpp"

#include <utility>

#include <vtkLogger.h>
#include <vtkObjectFactory.h>
#include <vtkOutputWindow.h>
#include <vtkSmartPointer.h>

namespace cosim::visual {

namespace {

thread_local VtkErrorCapture* current_capture = nullptr;
std::function<void(std::string_view)> g_sink;

class RoutedOutputWindow : public vtkOutputWindow {
 public:
  static RoutedOutputWindow* New();
  vtkTypeMacro(RoutedOutputWindow, vtkOutputWindow)

  void DisplayText(const char* text) override { forward(text, false); }
  void DisplayErrorText(const char* text) override { forward(text, true); }
  void DisplayWarningText(const char* text) override { forward(text, false); }
  void DisplayGenericWarningText(const char* text) override { forward(text, false); }
  void DisplayDebugText(const char*) override {}

 private:
  static void forward(const char* text, bool is_error) {
    const std::string line = vtk_message_line(text != nullptr ? text : "");
    if (line.empty()) return;
    if (is_error && current_capture != nullptr) {
      current_capture->add(line);
    } else if (g_sink) {
      g_sink(std::string(is_error ? "VTK error: " : "VTK: ") + line);
    }
  }
};
vtkStandardNewMacro(RoutedOutputWindow)

void install_routed_window() {
  // VTK 9 also logs errors through loguru straight to stderr: silence that copy.
  vtkLogger::SetStderrVerbosity(vtkLogger::VERBOSITY_OFF);
  if (vtkOutputWindow::GetInstance() == nullptr || !vtkOutputWindow::GetInstance()->IsA("RoutedOutputWindow")) {
    auto window = vtkSmartPointer<RoutedOutputWindow>::New();
    vtkOutputWindow::SetInstance(window);
  }
}

}  // namespace

void route_vtk_messages(std::function<void(std::string_view)> sink) {
  g_sink = std::move(sink);
  install_routed_window();
}

VtkErrorCapture::VtkErrorCapture() : previous_(current_capture) {
  current_capture = this;
  install_routed_window();  // errors reach us even if route_vtk_messages() was never called (tests)
}
VtkErrorCapture::~VtkErrorCapture() { current_capture = previous_; }
void VtkErrorCapture::add(std::string_view message) {
  if (first_error_.empty()) first_error_ = message;
}

std::string vtk_message_line(std::string_view text) {
  // The last non-empty line carries the message; drop the "vtkClass (0x...): " prefix.
  std::string_view best;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (!line.empty()) best = line;
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  if (const auto at = best.find("): "); at != std::string_view::npos && best.substr(0, 3) == "vtk") {
    best.remove_prefix(at + 3);
  }
  return std::string(best);
}

}  // namespace cosim::visual
