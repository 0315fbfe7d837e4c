// A MetricsSink that keeps nothing, for tests of environments and roles that need one.
#pragma once

#include "runtime/metrics.h"

namespace pstwin::testing_support {

class NullSink : public MetricsSink {
 public:
  void staleness(std::int64_t, std::uint64_t) override {}
  void updates_applied(std::uint64_t) override {}
  void bytes_to_servers(std::uint64_t) override {}
  void eval(EvalRow) override {}
  void event(double, const std::string&, nlohmann::json) override {}
  void finish(const std::string&, bool, const std::string&) override {}
};

}  // namespace pstwin::testing_support
