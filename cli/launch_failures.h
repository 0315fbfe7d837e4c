// What launch can do with a scenario's failures, said by launch (a refusal) and by validate (a
// note), each naming where the failures come from: /failures or a variant's "set".
#pragma once

#include <cstddef>
#include <string>

#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// The JSON pointer variant `i`'s failures come from: "/variants/I/set/~1failures" (or the
/// deeper key it sets, e.g. "~1failures~10") when the variant's "set" overrides them, else
/// "/failures". REQUIRES i < base.consistency.size().
std::string failures_pointer(const Scenario& base, std::size_t i);

/// Why launch cannot inject `run`'s failures with `transport` ("zmq", "ucx" or "inproc") and, when
/// `hostfile`, on other machines: "" when it can (or there are none), else the reason, e.g.
/// "needs --transport zmq or ucx (processes to kill)".
std::string launch_cannot_inject(const Scenario& run, const std::string& transport, bool hostfile);

/// Notes on `base`'s failures for validate, one a line, each starting with the pointer: failures
/// launch cannot inject at all (links), that it injects only with --transport zmq or ucx on local
/// processes, and joins at or after training.time_budget (the run ends first: no join).
std::string failure_notes(const Scenario& base);

/// A warning for a real run of `run` (variant `name`) on a machine whose one-minute load average
/// is `load` over `cores` cores: when the machine is busier than its cores and heartbeats run
/// with a timeout under 1 s, starved nodes may miss beats and be declared dead although they
/// live (the scheduler discounts only its own delays). "" otherwise.
std::string loaded_machine_warning(const Scenario& run, const std::string& name, double load, unsigned cores);

}  // namespace pstwin::cli
