#include "net/spare_values.h"

#include <algorithm>

namespace pstwin::net {

void SpareValues::give(std::vector<float> values) {
  if (values.capacity() * sizeof(float) < kWorthKeepingBytes) return;
  std::lock_guard lock(mutex_);
  held_.push_back(std::move(values));
  if (held_.size() > kKept) {
    auto smallest = std::min_element(held_.begin(), held_.end(), [](const auto& a, const auto& b) {
      return a.capacity() < b.capacity();
    });
    std::swap(*smallest, held_.back());
    held_.pop_back();
  }
}

std::vector<std::vector<float>>::iterator SpareValues::smallest_fitting(std::size_t n) {
  auto pick = held_.end();
  for (auto it = held_.begin(); it != held_.end(); ++it)
    if (it->capacity() >= n && (pick == held_.end() || it->capacity() < pick->capacity())) pick = it;
  return pick;
}

std::vector<float> SpareValues::remove(std::vector<std::vector<float>>::iterator pick) {
  std::vector<float> out = std::move(*pick);
  std::swap(*pick, held_.back());
  held_.pop_back();
  return out;
}

std::vector<float> SpareValues::take(std::size_t n) {
  if (n * sizeof(float) < kWorthKeepingBytes) return {};
  std::lock_guard lock(mutex_);
  if (held_.empty()) return {};
  auto pick = smallest_fitting(n);
  if (pick == held_.end())
    pick = std::max_element(held_.begin(), held_.end(), [](const auto& a, const auto& b) {
      return a.capacity() < b.capacity();
    });
  std::vector<float> out = remove(pick);
  out.clear();
  return out;
}

std::vector<float> SpareValues::take_sized(std::size_t n) {
  std::lock_guard lock(mutex_);
  const auto pick = smallest_fitting(n);
  if (pick == held_.end()) return {};
  std::vector<float> out = remove(pick);
  out.resize(n);  // shrinking writes nothing; growing within capacity fills only the new tail
  return out;
}

}  // namespace pstwin::net
