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

namespace pstwin {
namespace {

constexpr std::uint32_t kImagesMagic = 0x00000803;  // u8 elements, 3 dimensions
constexpr std::uint32_t kLabelsMagic = 0x00000801;  // u8 elements, 1 dimension

/// The whole decompressed content. gzread passes a file that is not gzip through unchanged, so
/// one path serves both. The buffer grows with the data actually read: a corrupt header never
/// makes us allocate what it claims.
std::vector<std::uint8_t> read_all(const std::string& path) {
  errno = 0;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> f(gzopen(path.c_str(), "rb"), &gzclose);
  if (!f) {
    throw DataError(
        path, 0, std::string("cannot open: ") + (errno ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(f.get(), 1 << 17);  // larger than the 8 KiB default: fewer, bigger inflate calls
  std::vector<std::uint8_t> data;
  constexpr std::size_t kChunk = 1 << 20;
  for (;;) {
    const std::size_t old = data.size();
    data.resize(old + kChunk);
    const int n = gzread(f.get(), data.data() + old, static_cast<unsigned>(kChunk));
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

/// Checks the magic and returns the dimension sizes, having checked that the elements after the
/// header are exactly as many bytes as their product.
std::vector<std::uint32_t> check_header(const std::uint8_t* data, std::size_t size,
                                        const std::string& path, std::uint32_t magic,
                                        const char* what) {
  const std::size_t ndims = magic & 0xFF;
  const std::size_t header = 4 + 4 * ndims;
  if (size < 4) {
    throw DataError(path, 0, "truncated: " + std::to_string(size) + " bytes, no IDX header");
  }
  const std::uint32_t got = read_be32(data);
  if (got != magic) {
    throw DataError(path, 0, "magic " + hex(got) + " is not " + hex(magic) + " (IDX " + what + ")");
  }
  if (size < header) {
    throw DataError(path, 0,
                    "truncated: IDX header needs " + std::to_string(header) + " bytes, file has " +
                        std::to_string(size));
  }
  std::vector<std::uint32_t> dims(ndims);
  std::uint64_t expected = 1;  // at most (2^32)^3 would overflow; guarded below
  for (std::size_t i = 0; i < ndims; ++i) {
    dims[i] = read_be32(data + 4 + 4 * i);
    if (dims[i] != 0 && expected > UINT64_MAX / dims[i]) {
      throw DataError(path, 0, "IDX sizes are impossibly large");
    }
    expected *= dims[i];
  }
  const std::uint64_t body = size - header;
  if (body != expected) {
    std::string sizes;
    for (std::size_t i = 0; i < ndims; ++i) sizes += (i ? " x " : "") + std::to_string(dims[i]);
    throw DataError(path, 0,
                    std::string(body < expected ? "truncated" : "size mismatch") +
                        ": header says " + sizes + " = " + std::to_string(expected) +
                        " bytes of data, file has " + std::to_string(body));
  }
  return dims;
}

/// A dense Dataset of the images in data[0..size), pixels scaled to [0, 1], without labels yet.
Dataset parse_images(const std::uint8_t* data, std::size_t size, const std::string& images_path,
                     const std::string& labels_path) {
  Dataset ds;
  ds.source = images_path + " + " + labels_path;
  ds.sparse = false;
  const auto dims = check_header(data, size, images_path, kImagesMagic, "images");
  if (dims[0] == 0) throw DataError(images_path, 0, "no images");
  if (dims[1] == 0 || dims[2] == 0) {
    throw DataError(images_path, 0,
                    "images of size " + std::to_string(dims[1]) + " x " +
                        std::to_string(dims[2]) + " have no pixels");
  }
  ds.rows = dims[0];
  ds.cols = std::size_t{dims[1]} * dims[2];
  const std::uint8_t* pixels = data + 16;
  ds.values.resize(ds.rows * ds.cols);
  std::transform(pixels, pixels + ds.values.size(), ds.values.begin(),
                 [](std::uint8_t b) { return static_cast<float>(b) / 255.0f; });
  return ds;
}

/// Adds the labels in data[0..size) to `ds`, which parse_images filled.
void add_labels(Dataset& ds, const std::uint8_t* data, std::size_t size,
                const std::string& images_path, const std::string& labels_path) {
  const auto dims = check_header(data, size, labels_path, kLabelsMagic, "labels");
  if (dims[0] != ds.rows) {
    throw DataError(labels_path, 0,
                    "has " + std::to_string(dims[0]) + " labels but " + images_path + " has " +
                        std::to_string(ds.rows) + " images");
  }
  ds.labels.assign(data + 8, data + size);
  ds.labels01.assign(ds.labels.begin(), ds.labels.end());
  ds.num_classes =
      static_cast<std::size_t>(*std::max_element(ds.labels.begin(), ds.labels.end())) + 1;
}

}  // namespace

Dataset parse_idx(const std::uint8_t* images, std::size_t images_size,
                  const std::string& images_source, const std::uint8_t* labels,
                  std::size_t labels_size, const std::string& labels_source) {
  Dataset ds = parse_images(images, images_size, images_source, labels_source);
  add_labels(ds, labels, labels_size, images_source, labels_source);
  return ds;
}

Dataset read_idx(const std::string& images_path, const std::string& labels_path) {
  Dataset ds;
  {
    const std::vector<std::uint8_t> images = read_all(images_path);
    ds = parse_images(images.data(), images.size(), images_path, labels_path);
  }  // the byte buffer is freed before the labels are read
  const std::vector<std::uint8_t> labels = read_all(labels_path);
  add_labels(ds, labels.data(), labels.size(), images_path, labels_path);
  return ds;
}

}  // namespace pstwin
