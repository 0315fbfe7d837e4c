// The tests' name for runtime/metrics.h's NullSink, a MetricsSink that keeps nothing.
#pragma once

#include "runtime/metrics.h"

namespace pstwin::testing_support {

using NullSink = pstwin::NullSink;

}  // namespace pstwin::testing_support
