// read_idx: MNIST-style IDX image and label files (gzipped or plain) into a dense Dataset.
//
// IDX layout: a 4-byte magic (0, 0, element type 0x08 = u8, number of dimensions), one
// big-endian u32 size per dimension, then the elements in row-major order.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/data/dataset.h"
#include "runtime/errors.h"
#include "runtime/count_text.h"

namespace pstwin {
namespace {

constexpr std::uint32_t kImagesMagic = 0x00000803;  // u8 elements, 3 dimensions
constexpr std::uint32_t kLabelsMagic = 0x00000801;  // u8 elements, 1 dimension

/// The decompressed content, all of it or its first `limit` bytes. gzread passes a file that is
/// not gzip through unchanged, so one path serves both. The buffer grows with the data actually
/// read: a corrupt header never makes us allocate what it claims.
std::vector<std::uint8_t> read_all(const std::string& path, std::size_t limit = SIZE_MAX) {
  errno = 0;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> f(gzopen(path.c_str(), "rb"), &gzclose);
  if (!f) {
    throw DataError(
        path, 0, std::string("cannot open: ") + (errno ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(f.get(), 1 << 17);  // larger than the 8 KiB default: fewer, bigger inflate calls
  std::vector<std::uint8_t> data;
  constexpr std::size_t kChunk = 1 << 20;
  while (data.size() < limit) {
    const std::size_t old = data.size();
    const std::size_t want = std::min(kChunk, limit - old);
    data.resize(old + want);
    const int n = gzread(f.get(), data.data() + old, static_cast<unsigned>(want));
    if (n < 0) {
      int code = 0;
      const char* msg = gzerror(f.get(), &code);
      throw DataError(
          path, 0, std::string("cannot read: ") + (code == Z_ERRNO ? std::strerror(errno) : msg));
    }
    data.resize(old + static_cast<std::size_t>(n));
    if (n == 0) break;
  }
  // A gzip stream cut short is not a read error to gzread: it returns what it inflated and
  // notes Z_BUF_ERROR. Without this check a file missing only its CRC trailer would pass.
  int code = Z_OK;
  gzerror(f.get(), &code);
  if (code == Z_BUF_ERROR) {
    throw DataError(path, 0, "truncated: gzip stream ends early");
  }
  return data;
}

std::uint32_t read_be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

/// Checks the magic and returns the dimension sizes; `data` holds at least the header.
std::vector<std::uint32_t> read_header(const std::vector<std::uint8_t>& data, const std::string& path,
                                       std::uint32_t magic, const char* what) {
  const std::size_t ndims = magic & 0xFF;
  const std::size_t header = 4 + 4 * ndims;
  if (data.size() < 4) {
    throw DataError(path, 0, "truncated: " + std::to_string(data.size()) + " bytes, no IDX header");
  }
  const std::uint32_t got = read_be32(data.data());
  if (got != magic) {
    throw DataError(path, 0, "magic " + hex(got) + " is not " + hex(magic) + " (IDX " + what + ")");
  }
  if (data.size() < header) {
    throw DataError(path, 0,
                    "truncated: IDX header needs " + std::to_string(header) + " bytes, file has " +
                        std::to_string(data.size()));
  }
  std::vector<std::uint32_t> dims(ndims);
  std::uint64_t expected = 1;  // at most (2^32)^3 would overflow; guarded below
  for (std::size_t i = 0; i < ndims; ++i) {
    dims[i] = read_be32(data.data() + 4 + 4 * i);
    if (dims[i] != 0 && expected > UINT64_MAX / dims[i]) {
      throw DataError(path, 0, "IDX sizes are impossibly large");
    }
    expected *= dims[i];
  }
  return dims;
}

/// read_header, having also checked that the elements after the header are exactly as many
/// bytes as the product of the sizes.
std::vector<std::uint32_t> check_header(const std::vector<std::uint8_t>& data,
                                        const std::string& path, std::uint32_t magic,
                                        const char* what) {
  const std::vector<std::uint32_t> dims = read_header(data, path, magic, what);
  const std::size_t header = 4 + 4 * dims.size();
  std::uint64_t expected = 1;
  for (const std::uint32_t d : dims) expected *= d;
  const std::uint64_t body = data.size() - header;
  if (body != expected) {
    std::string sizes;
    for (std::size_t i = 0; i < dims.size(); ++i) sizes += (i ? " x " : "") + std::to_string(dims[i]);
    throw DataError(path, 0,
                    std::string(body < expected ? "truncated" : "size mismatch") +
                        ": header says " + sizes + " = " + std::to_string(expected) +
                        " bytes of data, file has " + std::to_string(body));
  }
  return dims;
}

/// Each distinct label of `labels` (u8, record i is labels[i]) with its first 1-based record.
std::vector<LabelSeen> first_records(const std::uint8_t* labels, std::size_t n) {
  std::vector<LabelSeen> seen;
  bool known[256] = {};
  for (std::size_t i = 0; i < n; ++i) {
    if (known[labels[i]]) continue;
    known[labels[i]] = true;
    seen.push_back(LabelSeen{labels[i], i + 1});
  }
  return seen;
}

/// The image sizes of a checked images header: rows x cols pixels, both non-zero, and images.
void check_image_sizes(const std::vector<std::uint32_t>& dims, const std::string& path) {
  if (dims[0] == 0) throw DataError(path, 0, "no images");
  if (dims[1] == 0 || dims[2] == 0) {
    throw DataError(path, 0,
                    "images of size " + std::to_string(dims[1]) + " x " + std::to_string(dims[2]) +
                        " have no pixels");
  }
}

void check_counts_match(std::uint32_t labels, std::uint64_t images, const std::string& labels_path,
                        const std::string& images_path) {
  if (labels != images) {
    throw DataError(labels_path, 0,
                    "has " + count_text(labels, "label") + " but " + images_path + " has " +
                        count_text(images, "image"));
  }
}

}  // namespace

IdxHead read_idx_head(const std::string& images_path, const std::string& labels_path, std::size_t max_labels) {
  IdxHead head;
  const auto dims = read_header(read_all(images_path, 16), images_path, kImagesMagic, "images");
  check_image_sizes(dims, images_path);
  head.images = dims[0];
  head.pixels = std::uint64_t{dims[1]} * dims[2];
  const std::uint64_t wanted = std::min<std::uint64_t>(max_labels, head.images);
  const std::vector<std::uint8_t> labels = read_all(labels_path, 8 + wanted);
  check_counts_match(read_header(labels, labels_path, kLabelsMagic, "labels")[0], head.images, labels_path,
                     images_path);
  head.labels_read = labels.size() - 8;
  if (head.labels_read < wanted)
    throw DataError(labels_path, 0,
                    "truncated: header says " + count_text(head.images, "label") + ", file has " +
                        std::to_string(head.labels_read));
  head.labels_seen = first_records(labels.data() + 8, head.labels_read);
  return head;
}

namespace {

/// The images of an images file's bytes, checked, pixels scaled to [0, 1], into `ds`.
void fill_images(Dataset& ds, const std::vector<std::uint8_t>& images, const std::string& images_path) {
  const auto dims = check_header(images, images_path, kImagesMagic, "images");
  check_image_sizes(dims, images_path);
  ds.rows = dims[0];
  ds.cols = std::size_t{dims[1]} * dims[2];
  const std::uint8_t* pixels = images.data() + 16;
  ds.values.resize(ds.rows * ds.cols);
  std::transform(pixels, pixels + ds.values.size(), ds.values.begin(),
                 [](std::uint8_t b) { return static_cast<float>(b) / 255.0f; });
}

/// The labels of a labels file's bytes, checked against the images fill_images read.
void fill_labels(Dataset& ds, const std::vector<std::uint8_t>& labels, const std::string& labels_path,
                 const std::string& images_path) {
  check_counts_match(check_header(labels, labels_path, kLabelsMagic, "labels")[0], ds.rows, labels_path,
                     images_path);
  ds.labels.assign(labels.begin() + 8, labels.end());
  ds.labels_file = labels_path;
  ds.labels_by_record = true;
  ds.labels_seen = first_records(labels.data() + 8, ds.rows);
  ds.labels01.assign(ds.labels.begin(), ds.labels.end());
  ds.num_classes =
      static_cast<std::size_t>(*std::max_element(ds.labels.begin(), ds.labels.end())) + 1;
}

Dataset empty_dense(const std::string& images_path, const std::string& labels_path) {
  Dataset ds;
  ds.source = images_path + " + " + labels_path;
  ds.sparse = false;
  return ds;
}

}  // namespace

Dataset read_idx(const std::string& images_path, const std::string& labels_path) {
  Dataset ds = empty_dense(images_path, labels_path);
  fill_images(ds, read_all(images_path), images_path);  // its bytes are freed before the labels'
  fill_labels(ds, read_all(labels_path), labels_path, images_path);
  return ds;
}

Dataset parse_idx(const std::uint8_t* images, std::size_t images_size,
                  const std::string& images_source, const std::uint8_t* labels,
                  std::size_t labels_size, const std::string& labels_source) {
  Dataset ds = empty_dense(images_source, labels_source);
  fill_images(ds, std::vector<std::uint8_t>(images, images + images_size), images_source);
  fill_labels(ds, std::vector<std::uint8_t>(labels, labels + labels_size), labels_source, images_source);
  return ds;
}

}  // namespace pstwin
