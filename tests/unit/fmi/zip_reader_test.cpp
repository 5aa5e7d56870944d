// The zip reader an FMU is opened with: archives written here byte by byte (so every hostile
// form can be made: names that climb out, links, bombs, damage) and one written by another
// implementation (CMake's `cmake -E tar --format=zip`, libarchive, at build time).
#include "cosim/fmi/zip_reader.hpp"

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include "cosim/test/scratch_dir.hpp"
#include "cosim/util/errors.hpp"

namespace cosim::fmi {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct Entry {
  std::string name;
  std::string data;
  bool deflate = false;
  std::uint16_t flags = 1 << 11;  // UTF-8 names
  std::uint16_t made_by = 20;     // MS-DOS: no Unix mode
  std::uint32_t external = 0;
  std::int64_t declared_size = -1;  // the size the headers claim (-1: the true one)
  std::int64_t crc = -1;
};

Entry stored(std::string name, std::string data = {}) {
  Entry e;
  e.name = std::move(name);
  e.data = std::move(data);
  return e;
}
Entry deflated(std::string name, std::string data) {
  Entry e = stored(std::move(name), std::move(data));
  e.deflate = true;
  return e;
}
// An entry changed by `change`: the hostile forms.
template <class Change>
Entry with(Entry e, Change change) {
  change(e);
  return e;
}

void put16(std::string& out, std::uint32_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>((v >> 8) & 0xff);
}
void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

std::string raw_deflate(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, static_cast<uLong>(data.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// A zip archive as APPNOTE lays it out: local headers and data, the central directory, its end.
std::string zip(const std::vector<Entry>& entries) {
  std::string out, central;
  for (const Entry& e : entries) {
    const std::string packed = e.deflate ? raw_deflate(e.data) : e.data;
    const auto crc = e.crc >= 0 ? static_cast<std::uint32_t>(e.crc)
                                : static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(e.data.data()),
                                                                   static_cast<uInt>(e.data.size())));
    const auto size = static_cast<std::uint32_t>(e.declared_size >= 0 ? e.declared_size : static_cast<std::int64_t>(e.data.size()));
    const auto offset = static_cast<std::uint32_t>(out.size());
    const std::uint16_t method = e.deflate ? 8 : 0;
    put32(out, 0x04034b50);
    for (const std::uint32_t v : {20u, unsigned{e.flags}, unsigned{method}, 0u, 0u}) put16(out, v);
    put32(out, crc);
    put32(out, static_cast<std::uint32_t>(packed.size()));
    put32(out, size);
    put16(out, static_cast<std::uint32_t>(e.name.size()));
    put16(out, 0);
    out += e.name + packed;
    put32(central, 0x02014b50);
    for (const std::uint32_t v : {unsigned{e.made_by}, 20u, unsigned{e.flags}, unsigned{method}, 0u, 0u}) put16(central, v);
    put32(central, crc);
    put32(central, static_cast<std::uint32_t>(packed.size()));
    put32(central, size);
    for (const std::uint32_t v : {static_cast<std::uint32_t>(e.name.size()), 0u, 0u, 0u, 0u}) put16(central, v);
    put32(central, e.external);
    put32(central, offset);
    central += e.name;
  }
  const auto cd_offset = static_cast<std::uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50);
  for (const std::uint32_t v : {0u, 0u, static_cast<std::uint32_t>(entries.size()), static_cast<std::uint32_t>(entries.size())}) {
    put16(out, v);
  }
  put32(out, static_cast<std::uint32_t>(central.size()));
  put32(out, cd_offset);
  put16(out, 0);
  return out;
}

class ZipReader : public test::ScratchDirTest {
 protected:
  fs::path archive(const std::vector<Entry>& entries, const std::string& name = "test.fmu") {
    return write(name, zip(entries));
  }
  std::string error_of(const fs::path& file, ZipLimits limits = {}) {
    try {
      ZipArchive z(file, limits);
      z.extract_all(dir_ / "out");
    } catch (const util::CosimError& e) {
      return e.what();
    }
    return "(no error)";
  }
};

TEST_F(ZipReader, ReadsAndExtractsStoredAndDeflatedEntries) {
  const std::string text(100000, 'x');
  const fs::path file = archive({stored("modelDescription.xml", "<fmiModelDescription/>"), stored("binaries/"),
                                 deflated("binaries/x86_64-linux/m.so", text)});
  ZipArchive z(file);
  ASSERT_EQ(z.entries().size(), 3u);
  EXPECT_TRUE(z.entries()[1].folder());
  ASSERT_NE(z.find("modelDescription.xml"), nullptr);
  EXPECT_EQ(z.read(*z.find("modelDescription.xml")), "<fmiModelDescription/>");
  EXPECT_LT(z.find("binaries/x86_64-linux/m.so")->packed, 1000u) << "deflated";
  fs::create_directories(dir_ / "out");
  z.extract_all(dir_ / "out");
  std::ifstream in(dir_ / "out" / "binaries" / "x86_64-linux" / "m.so", std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
}

TEST_F(ZipReader, ReadsAnArchiveWrittenByAnotherImplementation) {
  // tests/unit/fmi/CMakeLists.txt packs two files with `cmake -E tar c --format=zip`.
  ZipArchive z(COSIM_CMAKE_ZIP);
  ASSERT_NE(z.find("hello.txt"), nullptr);
  EXPECT_EQ(z.read(*z.find("hello.txt")), "hello from cmake\n");
  ASSERT_NE(z.find("sub/numbers.txt"), nullptr);
  EXPECT_EQ(z.read(*z.find("sub/numbers.txt")).size(), z.find("sub/numbers.txt")->size);
}

TEST_F(ZipReader, NamesThatCouldLeaveTheFolderAreRefusedBeforeAnythingIsWritten) {
  const auto refused = [&](const std::string& name, const std::string& why) {
    const fs::path file = archive({stored("ok.txt", "fine"), stored(name, "evil")});
    const std::string error = error_of(file);
    EXPECT_THAT(error, HasSubstr("test.fmu: " + name + ": " + why)) << name;
    EXPECT_FALSE(fs::exists(dir_ / "out" / "ok.txt")) << "nothing extracted: " << name;
  };
  refused("../evil.txt", "a '..' component");
  refused("a/../../evil.txt", "a '..' component");
  refused("/etc/evil", "an absolute path");
  refused("a\\..\\..\\evil", "a backslash in the name");
  refused("C:evil", "a ':' in the name");
  refused("a//b", "an empty path component");
  refused(std::string("a\x01") + "b", "a control character");
}

TEST_F(ZipReader, LinksEncryptionTwinsAndFilesUsedAsFoldersAreRefused) {
  constexpr std::uint32_t kUnixLink = 0120777u << 16;
  EXPECT_THAT(error_of(archive({with(stored("link", "/etc/passwd"), [](Entry& e) {
                e.made_by = 3 << 8 | 20;
                e.external = kUnixLink;
              })})),
              HasSubstr("link: a symbolic link"));
  EXPECT_THAT(error_of(archive({with(stored("secret", "x"), [](Entry& e) { e.flags = 1; })})), HasSubstr("secret: encrypted"));
  EXPECT_THAT(error_of(archive({stored("A.txt", "1"), stored("a.TXT", "2")})),
              HasSubstr("a.TXT: a second entry of this name"));
  EXPECT_THAT(error_of(archive({stored("a", "1"), stored("a/b", "2")})),
              HasSubstr("a: a file and a folder on the way to a/b"));
}

TEST_F(ZipReader, SizesAreHeldToTheLimitsWhateverTheArchiveDeclares) {
  // A bomb that lies: 1 MB of zeros declared as 10 bytes.
  const std::string zeros(1 << 20, '\0');
  EXPECT_THAT(error_of(archive({with(deflated("bomb", zeros), [](Entry& e) { e.declared_size = 10; })})),
              HasSubstr("bomb: inflates past its declared 10 bytes"));
  EXPECT_THAT(error_of(archive({deflated("big", zeros)}), ZipLimits{1000, 10'000}),
              HasSubstr("more than 1000 bytes uncompressed (at big)"));
  EXPECT_THAT(error_of(archive({stored("a", "1"), stored("b", "2"), stored("c", "3")}), ZipLimits{1 << 20, 2}),
              HasSubstr("3 entries; at most 2"));
}

TEST_F(ZipReader, DamageAndNonZipsAreOneLineNamingTheFile) {
  EXPECT_THAT(error_of(archive({with(stored("a.txt", "hello"), [](Entry& e) { e.crc = 1234; })})), HasSubstr("a.txt: its CRC-32 does not match"));
  EXPECT_THAT(error_of(write("plain.fmu", "this is not a zip archive at all, just text")),
              HasSubstr("plain.fmu: not a zip archive (no end of central directory)"));
  std::string cut = zip({stored("a.txt", "hello")});
  cut.erase(cut.size() - 30, 8);  // into the central directory
  EXPECT_THAT(error_of(write("cut.fmu", cut)), HasSubstr("cut.fmu: "));
  EXPECT_THAT(error_of(dir_ / "missing.fmu"), HasSubstr("missing.fmu: no such file"));
}

}  // namespace
}  // namespace cosim::fmi
