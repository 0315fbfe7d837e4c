#include "cli/sweep_grid.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace pstwin::cli {

namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

}  // namespace

GridAxis parse_grid_axis(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || text.empty() || text[0] != '/')
    throw std::invalid_argument("--grid " + text + ": expected /json/pointer=value,value,...");
  GridAxis axis;
  axis.pointer = text.substr(0, eq);
  const std::string list = text.substr(eq + 1);
  // Commas inside a JSON array, object or string belong to the value, not to the list.
  int depth = 0;
  bool in_string = false;
  std::string current;
  auto finish = [&] {
    const std::string v = trim(current);
    if (v.empty()) throw std::invalid_argument("--grid " + text + ": an empty value in the list");
    axis.values.push_back(v);
    current.clear();
  };
  for (std::size_t i = 0; i < list.size(); ++i) {
    const char c = list[i];
    if (in_string) {
      if (c == '\\' && i + 1 < list.size()) {
        current += c;
        current += list[++i];
        continue;
      }
      if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth < 0) throw std::invalid_argument("--grid " + text + ": unbalanced '" + c + "'");
    } else if (c == ',' && depth == 0) {
      finish();
      continue;
    }
    current += c;
  }
  if (in_string || depth != 0)
    throw std::invalid_argument("--grid " + text + ": an unclosed string, array or object");
  finish();
  std::set<std::string> seen;
  for (const auto& v : axis.values)
    if (!seen.insert(v).second)
      throw std::invalid_argument("--grid " + text + ": the value " + v + " is given twice");
  return axis;
}

std::vector<GridPoint> grid_points(const std::vector<GridAxis>& axes) {
  std::vector<GridPoint> points(1);
  for (const auto& axis : axes) {
    std::vector<GridPoint> next;
    for (const auto& p : points)
      for (const auto& v : axis.values) {
        GridPoint q = p;
        q.values.push_back(v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::string folder_safe(const std::string& value) {
  std::string out;
  bool replaced = false;
  for (const char c : value) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+') {
      out += c;
      replaced = false;
    } else if (!replaced) {
      out += '_';
      replaced = true;
    }
  }
  // Quotes around a string value add nothing to the name.
  while (!out.empty() && out.front() == '_') out.erase(out.begin());
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "_" : out;
}

std::string point_folder_name(const std::vector<GridAxis>& axes, const GridPoint& point,
                              unsigned long long seed) {
  std::string name;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::string key = axes[i].pointer.substr(1);
    std::replace(key.begin(), key.end(), '/', '.');
    name += folder_safe(key) + "=" + folder_safe(point.values[i]) + "_";
  }
  return name + "seed=" + std::to_string(seed);
}

}  // namespace pstwin::cli
