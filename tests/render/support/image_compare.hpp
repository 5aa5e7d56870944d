#pragma once
/// \file
/// Image comparison for the reference-image tests: VTK's own regression comparison.

#include <filesystem>

namespace cosim::visual {

/// vtkImageDifference between two RGB PNG files: each pixel is matched with the closest
/// colour in a small neighbourhood of the other image (AllowShift, Averaging, as VTK's
/// regression tests), per-pixel differences below vtkImageDifference's threshold are
/// ignored, and the rest summed. Returns GetThresholdedError() (0 = same image), the
/// figure VTK's tests compare with their tolerance. Throws std::runtime_error when a file
/// cannot be read or the sizes differ.
double image_difference(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace cosim::visual
