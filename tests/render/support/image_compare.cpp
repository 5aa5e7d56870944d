#include "image_compare.hpp"

#include <stdexcept>
#include <string>

#include <vtkImageData.h>
#include <vtkImageDifference.h>
#include <vtkImageExtractComponents.h>
#include <vtkPNGReader.h>
#include <vtkSmartPointer.h>

#include "cosim/visual/vtk/vtk_messages.hpp"

namespace cosim::visual {

namespace {

vtkSmartPointer<vtkImageData> read_rgb_png(const std::filesystem::path& file) {
  VtkErrorCapture capture;
  auto reader = vtkSmartPointer<vtkPNGReader>::New();
  if (!reader->CanReadFile(file.c_str())) throw std::runtime_error(file.string() + ": not a readable PNG");
  reader->SetFileName(file.c_str());
  // RGBA files are compared on RGB only.
  auto rgb = vtkSmartPointer<vtkImageExtractComponents>::New();
  rgb->SetInputConnection(reader->GetOutputPort());
  rgb->SetComponents(0, 1, 2);
  rgb->Update();
  if (capture.had_error()) throw std::runtime_error(file.string() + ": " + capture.first_error());
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->DeepCopy(rgb->GetOutput());
  return image;
}

}  // namespace

double image_difference(const std::filesystem::path& a, const std::filesystem::path& b) {
  const auto image_a = read_rgb_png(a);
  const auto image_b = read_rgb_png(b);
  int da[3], db[3];
  image_a->GetDimensions(da);
  image_b->GetDimensions(db);
  if (da[0] != db[0] || da[1] != db[1]) {
    throw std::runtime_error(a.string() + " is " + std::to_string(da[0]) + "x" + std::to_string(da[1]) + ", " +
                             b.string() + " is " + std::to_string(db[0]) + "x" + std::to_string(db[1]));
  }
  auto difference = vtkSmartPointer<vtkImageDifference>::New();
  difference->SetInputData(image_a);
  difference->SetImageData(image_b);
  difference->Update();
  return difference->GetThresholdedError();
}

}  // namespace cosim::visual
