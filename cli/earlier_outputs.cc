#include "cli/earlier_outputs.h"

#include <filesystem>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

namespace pstwin::cli {

namespace {
void remove_regular_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(path, ec))) fs::remove(path, ec);
}
}  // namespace

void remove_earlier_outputs(const std::string& out, const std::vector<std::string>& variants) {
  for (const auto& name : variants)
    for (const char* file : {"summary.json", "metrics.csv", "events.jsonl", "trace.json", "link_load.csv",
                             // a launched job's live state: its nodes' addresses, where its scheduler and
                             // its metrics listened (a trial's simulate kept a dead metrics URL)
                             "address_book.json", "scheduler.endpoint", "metrics.url"})
      remove_regular_file(fs::path(out) / name / file);
  remove_earlier_figures(out);
}

void remove_earlier_figures(const std::string& out) {
  remove_regular_file(fs::path(out) / "report.md");
  std::vector<fs::path> figures;  // listed first: no removal while the folder is read
  std::error_code ec;
  for (fs::directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".png") figures.push_back(it->path());
  for (const auto& figure : figures) remove_regular_file(figure);
}

}  // namespace pstwin::cli
