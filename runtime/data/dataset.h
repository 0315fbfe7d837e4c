// Dataset: labelled examples in memory, read from LIBSVM or IDX files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/matrix.h"

namespace pstwin {

struct Ratings;  // runtime/data/ratings.h

/// A distinct label of a data file and where it first appears.
struct LabelSeen {
  std::int32_t label = 0;  ///< as written: LIBSVM's -1 stays -1 (its class is 0)
  std::uint64_t line = 0;  ///< 1-based line of Dataset::labels_file (an IDX label file: 1-based record)
};

/// Examples with integer class labels. Features are sparse (CSR) or dense (row-major), never both.
/// Immutable once read; share it read-only between the simulated nodes of one process.
struct Dataset {
  std::string source;      ///< file(s) it was read from, for messages
  std::size_t rows = 0;
  std::size_t cols = 0;    ///< number of features (max 1-based LIBSVM index, or pixels)
  bool sparse = true;
  std::vector<std::uint64_t> row_ptr;   ///< sparse: rows+1 offsets
  std::vector<std::uint32_t> col_idx;   ///< sparse: 0-based column of each stored value
  std::vector<float> values;            ///< sparse: stored values; dense: rows*cols values
  std::vector<std::int32_t> labels;     ///< class of each row, in [0, num_classes)
  std::vector<float> labels01;          ///< labels as floats (0.0 / 1.0 for binary tasks)
  std::size_t num_classes = 0;          ///< max label + 1
  std::string labels_file;              ///< the file the labels were read from
  bool labels_by_record = false;        ///< IDX: LabelSeen::line counts records, not lines
  std::vector<LabelSeen> labels_seen;   ///< each distinct label, in order of first appearance
  /// Ratings data (format "ratings", runtime/data/ratings.h): row i is rating i of this split;
  /// then there are no features or labels. Null for every other format.
  std::shared_ptr<const Ratings> ratings;

  /// A kernel view of the features. If cols_override > cols, the view reports that many columns
  /// (so a test set with fewer features matches the training set's model width).
  FeatureView view(std::size_t cols_override = 0) const;
};

/// Reads a LIBSVM / SVMlight file: one example per line, "label index:value ...", indices 1-based
/// and strictly increasing, '#' starts a comment, blank lines are skipped, explicit zeros are kept.
/// SVMlight's "qid:N" right after the label (ranking files) is skipped: it is not a feature.
/// Labels: -1 is class 0 (the binary +1/-1 convention); otherwise a non-negative integer is its
/// own class (+1 is class 1). Throws DataError naming the file and line for an unreadable file, a
/// non-integer or negative label other than -1, labels -1 and 0 in one file (both would be class
/// 0), a malformed qid, a malformed or non-increasing index, or a value that is not a finite
/// number. An empty file is an error. Fills labels_seen with line numbers.
Dataset read_libsvm(const std::string& path);

/// The same for LIBSVM text already in memory (e.g. the head of a file, cut after a line end);
/// `path` names it in errors.
Dataset parse_libsvm(std::string_view text, const std::string& path);

/// Reads an IDX image file (magic 0x00000803, u8 pixels, any rows x cols) and its IDX label file
/// (magic 0x00000801, u8 labels), each gzip-compressed or not (detected by content). Pixels are
/// scaled to [0, 1]; features are dense. Throws DataError (line 0) naming the file for a wrong
/// magic, a truncated file, or image and label counts that differ.
Dataset read_idx(const std::string& images_path, const std::string& labels_path);

/// What the headers of an IDX pair announce, and the labels of its first records.
struct IdxHead {
  std::uint64_t images = 0;  ///< images, and labels, the headers announce
  std::uint64_t pixels = 0;  ///< per image
  std::uint64_t labels_read = 0;       ///< labels read: min(images, max_labels)
  std::vector<LabelSeen> labels_seen;  ///< among those, with 1-based records
};

/// Reads the two headers and the first `max_labels` labels of an IDX pair, not the images.
/// Throws DataError (line 0) naming the file as read_idx does for an unreadable file, a wrong
/// magic, a truncated header, no images or pixels, counts that differ, or fewer labels than
/// that; that the images file holds every image its header announces is not checked.
IdxHead read_idx_head(const std::string& images_path, const std::string& labels_path, std::size_t max_labels);
/// read_idx on the files' contents already in memory and decompressed (not gzip); the sources
/// stand for the files in Dataset::source and in errors. read_idx decompresses each file and
/// calls the same checks, so both accept exactly the same content.
Dataset parse_idx(const std::uint8_t* images, std::size_t images_size,
                  const std::string& images_source, const std::uint8_t* labels,
                  std::size_t labels_size, const std::string& labels_source);

}  // namespace pstwin
