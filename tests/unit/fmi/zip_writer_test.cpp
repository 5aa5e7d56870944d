// The zip writer `cosim-fmu export` packs FMUs with, read back by the zip reader (and, in
// tests/fmu_export, by CMake's libarchive): contents, CRC, reproducible bytes, refused names.
#include "cosim/fmi/zip_writer.hpp"

#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosim/fmi/zip_reader.hpp"
#include "cosim/test/scratch_dir.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::fmi {
namespace {

namespace fs = std::filesystem;

class ZipWriterTest : public test::ScratchDirTest {};

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST_F(ZipWriterTest, WhatItWritesReadsBackEntryForEntry) {
  std::string binary(300000, '\0');
  for (std::size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>((i * 7919) % 251);
  const fs::path file = dir_ / "m.fmu";
  ZipWriter zip(file);
  zip.add("modelDescription.xml", "<fmiModelDescription/>\n");
  zip.add("binaries/x86_64-linux/m.so", binary);
  zip.add("resources/empty.txt", "");
  zip.finish();
  ZipArchive z(file);  // the reader checks every CRC and size
  ASSERT_EQ(z.entries().size(), 3u);
  EXPECT_EQ(z.read(*z.find("modelDescription.xml")), "<fmiModelDescription/>\n");
  EXPECT_EQ(z.read(*z.find("binaries/x86_64-linux/m.so")), binary);
  EXPECT_LT(z.find("binaries/x86_64-linux/m.so")->packed, binary.size()) << "deflated";
  EXPECT_EQ(z.read(*z.find("resources/empty.txt")), "");
  fs::create_directories(dir_ / "out");
  z.extract_all(dir_ / "out");  // folders made from the names
  EXPECT_EQ(bytes_of(dir_ / "out" / "binaries" / "x86_64-linux" / "m.so"), binary);
}

TEST_F(ZipWriterTest, TheSameEntriesGiveTheSameBytes) {
  for (const char* name : {"a.zip", "b.zip"}) {
    ZipWriter zip(dir_ / name);
    zip.add("x.txt", "same");
    zip.finish();
  }
  EXPECT_EQ(bytes_of(dir_ / "a.zip"), bytes_of(dir_ / "b.zip"));  // a fixed timestamp
}

TEST_F(ZipWriterTest, NamesTheReaderWouldRefuseAreRefusedHere) {
  ZipWriter zip(dir_ / "bad.zip");
  for (const char* name : {"", "/abs", "../up", "a/../../up", "a\\b", "a//b", "folder/"}) {
    EXPECT_THROW(zip.add(name, "x"), std::invalid_argument) << name;
  }
  zip.add("ok", "x");
  EXPECT_THROW(zip.add("ok", "y"), std::invalid_argument);
}

TEST_F(ZipWriterTest, AFolderThatDoesNotExistIsAnOutputErrorNamingTheFile) {
  try {
    ZipWriter zip(dir_ / "no" / "such" / "m.fmu");
    FAIL() << "no error";
  } catch (const util::OutputError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("m.fmu: cannot create"));
  }
}

}  // namespace
}  // namespace cosim::fmi
