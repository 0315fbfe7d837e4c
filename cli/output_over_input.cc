// out_overwrites_input: paths compared as the file system resolves them.
#include "cli/output_over_input.h"

#include <algorithm>
#include <filesystem>

namespace pstwin::cli {

namespace {

namespace fs = std::filesystem;

/// `path` absolute, with symbolic links, "." and ".." resolved as far as it exists.
fs::path resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path, ec) : p;
}

/// Whether `inner` lies inside folder `outer` (both resolved), at any depth.
bool is_inside(const fs::path& inner, const fs::path& outer) {
  const auto [o, i] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return o == outer.end() && i != inner.end();
}

}  // namespace

std::string out_overwrites_input(const std::string& out, const std::string& shown, OutKind kind,
                                 const std::vector<CommandInput>& inputs,
                                 const std::vector<std::string>& also_written, const std::string& out_flag) {
  const std::string head = shown + ": ";
  if (out.empty()) {  // it would resolve to the working folder and be taken for one that holds inputs
    std::string name = shown;
    while (!name.empty() && (name.back() == ' ' || name.back() == '=')) name.pop_back();
    return name + " is empty: give " + (kind == OutKind::kFolder ? "a folder" : "a file") + " to write to";
  }
  if (fs::path(out).filename() == ".pstwin.lock")
    return head + "that is the name of the output lock's own file (.pstwin.lock, which names the run that "
                  "holds a folder); give another name";
  const fs::path target = resolved(out);
  for (const CommandInput& input : inputs) {
    std::error_code ec;
    if (input.path.empty() || !fs::exists(input.path, ec)) continue;
    const fs::path source = resolved(input.path);
    if (source == target)
      return head + "that is " + input.what + " (" + input.path + "), which this command reads; writing " +
             (kind == OutKind::kFolder ? "a folder there" : "there") + " would overwrite it: give another " + out_flag;
    if (kind == OutKind::kFolder && !input.may_lie_inside && is_inside(source, target))
      return head + input.what + " (" + input.path + ") is inside that folder, where this run's outputs go and "
             "could overwrite it; give another " + out_flag + ", or move it out of the folder";
    for (const std::string& beside : also_written)
      if (source == resolved(beside))
        return head + input.what + " (" + input.path + ") would be overwritten by the file this command writes "
               "beside " + out_flag + "; give " + out_flag + " in another folder";
  }
  return "";
}

std::string shown_out(bool given, const std::string& out) {
  return given ? "--out " + out : "the default output folder " + out;
}

}  // namespace pstwin::cli
