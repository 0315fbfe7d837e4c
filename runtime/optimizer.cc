#include "runtime/optimizer.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace pstwin {

ServerOptimizer::ServerOptimizer(const OptimizerSpec& spec, double learning_rate,
                                 double momentum, std::size_t n)
    : spec_(spec), n_(n), lr_(learning_rate), mu_(momentum) {
  if (spec.kind == "sgd") {
    kind_ = Kind::kSgd;
  } else if (spec.kind == "momentum") {
    kind_ = Kind::kMomentum;
  } else if (spec.kind == "adagrad") {
    kind_ = Kind::kAdagrad;
  } else if (spec.kind == "adam") {
    kind_ = Kind::kAdam;
  } else {
    throw std::invalid_argument("unknown optimizer '" + spec.kind +
                                "' (expected sgd, momentum, adagrad or adam)");
  }
  if (kind_ == Kind::kAdam && (!(spec.beta1 >= 0.0 && spec.beta1 < 1.0) ||
                               !(spec.beta2 >= 0.0 && spec.beta2 < 1.0)))
    throw std::invalid_argument("adam: beta1 and beta2 must lie in [0, 1), got " +
                                std::to_string(spec.beta1) + " and " + std::to_string(spec.beta2));
  if ((kind_ == Kind::kAdagrad || kind_ == Kind::kAdam) &&
      !(spec.epsilon > 0.0 && std::isfinite(spec.epsilon)))
    throw std::invalid_argument(spec.kind + ": epsilon must be a finite number > 0, got " +
                                std::to_string(spec.epsilon));
  if (kind_ != Kind::kSgd) first_.assign(n, 0.0f);
  if (kind_ == Kind::kAdam) second_.assign(n, 0.0f);
}

ServerOptimizer::ServerOptimizer(const std::string& kind, double learning_rate, double momentum,
                                 std::size_t n)
    : ServerOptimizer(OptimizerSpec{.kind = kind}, learning_rate, momentum, n) {}

OptimizerState ServerOptimizer::state() const {
  return OptimizerState{.first = first_, .second = second_, .steps = steps_};
}

void ServerOptimizer::restore(OptimizerState s) {
  const std::size_t want_first = kind_ == Kind::kSgd ? 0 : n_;
  const std::size_t want_second = kind_ == Kind::kAdam ? n_ : 0;
  auto check = [&](const char* which, std::size_t got, std::size_t want) {
    if (got != want)
      throw std::invalid_argument(spec_.kind + " optimizer over " + std::to_string(n_) +
                                  " parameters: state vector '" + which + "' has " +
                                  std::to_string(got) + " floats, expected " +
                                  std::to_string(want));
  };
  check("first", s.first.size(), want_first);
  check("second", s.second.size(), want_second);
  first_ = std::move(s.first);
  second_ = std::move(s.second);
  steps_ = s.steps;
}

Cost ServerOptimizer::apply(KernelBackend& k, float* w, const float* g, double scale) {
  ++steps_;
  return update_range(k, 0, w, g, n_, scale);
}

Cost ServerOptimizer::apply_rows(KernelBackend& k, float* w, const float* g,
                                 const std::uint32_t* rows, std::size_t count, std::size_t width,
                                 double scale) {
  ++steps_;
  Cost cost;
  // One kernel call per run of consecutive rows: they are contiguous in w, g and the state.
  for (std::size_t j = 0; j < count;) {
    std::size_t end = j + 1;
    while (end < count && rows[end] == rows[end - 1] + 1) ++end;
    if ((j > 0 && rows[j] <= rows[j - 1]) ||
        (static_cast<std::size_t>(rows[end - 1]) + 1) * width > n_)
      throw std::invalid_argument("apply_rows: rows must be sorted, distinct and inside the " +
                                  std::to_string(n_ / (width ? width : 1)) + " rows of the shard");
    const std::size_t offset = static_cast<std::size_t>(rows[j]) * width;
    cost += update_range(k, offset, w + offset, g + j * width, (end - j) * width, scale);
    j = end;
  }
  return cost;
}

Cost ServerOptimizer::update_range(KernelBackend& k, std::size_t offset, float* w, const float* g,
                                   std::size_t n, double scale) {
  const auto lr = static_cast<float>(lr_);
  const auto s = static_cast<float>(scale);
  const auto eps = static_cast<float>(spec_.epsilon);
  switch (kind_) {
    case Kind::kSgd:
      return k.sgd_update(w, g, n, static_cast<float>(lr_ * scale));
    case Kind::kMomentum:
      return k.momentum_update(w, first_.data() + offset, g, n, static_cast<float>(lr_ * scale),
                               static_cast<float>(mu_));
    case Kind::kAdagrad:
      return k.adagrad_update(w, first_.data() + offset, g, n, lr, eps, s);
    case Kind::kAdam:
      return k.adam_update(w, first_.data() + offset, second_.data() + offset, g, n, lr,
                           static_cast<float>(spec_.beta1), static_cast<float>(spec_.beta2), eps,
                           steps_, s);
  }
  return Cost{};
}

}  // namespace pstwin
