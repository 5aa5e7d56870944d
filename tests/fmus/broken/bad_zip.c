/* Writes an FMU whose archive holds an entry named "../evil" beside its modelDescription.xml:
   bad_zip <modelDescription.xml> <out.fmu>. A zip of stored entries written by hand (PKWARE's
   APPNOTE 4.3: local headers, central directory, end record), so that no archiver in between
   can tidy the name. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc32_of(const unsigned char* data, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    crc ^= data[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

static void u16(FILE* f, unsigned v) { fputc((int)(v & 0xff), f); fputc((int)((v >> 8) & 0xff), f); }
static void u32(FILE* f, uint32_t v) { u16(f, v & 0xffff); u16(f, v >> 16); }

struct Entry {
  const char* name;
  const unsigned char* data;
  size_t size;
  uint32_t crc, offset;
};

/* The fields a local header and a central entry share: version needed .. name length. */
static void common(FILE* f, const struct Entry* e) {
  u16(f, 20);             /* version needed: 2.0 */
  u16(f, 0);              /* flags */
  u16(f, 0);              /* stored */
  u16(f, 0); u16(f, 33);  /* 00:00, 1980-01-01 */
  u32(f, e->crc);
  u32(f, (uint32_t)e->size);
  u32(f, (uint32_t)e->size);
  u16(f, (unsigned)strlen(e->name));
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: bad_zip <modelDescription.xml> <out.fmu>\n");
    return 2;
  }
  FILE* in = fopen(argv[1], "rb");
  if (in == NULL) { perror(argv[1]); return 1; }
  static unsigned char xml[1 << 16];
  const size_t xml_size = fread(xml, 1, sizeof xml, in);
  fclose(in);
  static const unsigned char evil[] = "written outside the FMU's folder\n";
  struct Entry entries[] = {{"modelDescription.xml", xml, xml_size, 0, 0}, {"../evil", evil, sizeof evil - 1, 0, 0}};
  const int n = 2;
  FILE* out = fopen(argv[2], "wb");
  if (out == NULL) { perror(argv[2]); return 1; }
  for (int i = 0; i < n; ++i) {
    struct Entry* e = &entries[i];
    e->crc = crc32_of(e->data, e->size);
    e->offset = (uint32_t)ftell(out);
    u32(out, 0x04034b50u);
    common(out, e);
    u16(out, 0); /* extra length */
    fwrite(e->name, 1, strlen(e->name), out);
    fwrite(e->data, 1, e->size, out);
  }
  const uint32_t cd_offset = (uint32_t)ftell(out);
  for (int i = 0; i < n; ++i) {
    const struct Entry* e = &entries[i];
    u32(out, 0x02014b50u);
    u16(out, 20); /* made by: MS-DOS, 2.0 */
    common(out, e);
    u16(out, 0); u16(out, 0); u16(out, 0); u16(out, 0); /* extra, comment, disk, internal attributes */
    u32(out, 0);                                         /* external attributes */
    u32(out, e->offset);
    fwrite(e->name, 1, strlen(e->name), out);
  }
  const uint32_t cd_size = (uint32_t)ftell(out) - cd_offset;
  u32(out, 0x06054b50u);
  u16(out, 0); u16(out, 0); u16(out, (unsigned)n); u16(out, (unsigned)n);
  u32(out, cd_size);
  u32(out, cd_offset);
  u16(out, 0);
  return fclose(out) == 0 ? 0 : 1;
}
