// Fuzz target: parse_idx (runtime/data/dataset.h) on an arbitrary image file and label file, as
// read_idx reads them once decompressed. The input is split in two at a point libFuzzer chooses
// (taken from its last bytes). Whatever parse_idx accepts must be a consistent dense dataset.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "runtime/data/dataset.h"
#include "runtime/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  const std::size_t images_size = input.ConsumeIntegralInRange<std::size_t>(0, input.remaining_bytes());
  const std::vector<std::uint8_t> images = input.ConsumeBytes<std::uint8_t>(images_size);
  const std::vector<std::uint8_t> labels = input.ConsumeRemainingBytes<std::uint8_t>();
  pstwin::Dataset ds;
  try {
    ds = pstwin::parse_idx(images.data(), images.size(), "images.idx", labels.data(), labels.size(),
                           "labels.idx");
  } catch (const pstwin::DataError&) {
    return 0;  // rejected with the file and a reason
  }
  using pstwin::fuzz::require;
  require(!ds.sparse && ds.rows > 0 && ds.cols > 0, "dense, with rows and columns");
  require(ds.values.size() == ds.rows * ds.cols, "rows * cols pixels");
  require(ds.labels.size() == ds.rows && ds.labels01.size() == ds.rows, "one label per image");
  for (const float v : ds.values) require(v >= 0.0f && v <= 1.0f, "pixels scaled to [0, 1]");
  for (const auto label : ds.labels)
    require(label >= 0 && static_cast<std::size_t>(label) < ds.num_classes, "every label is a class");
  return 0;
}
