// SpanScope: how a role marks a stretch of its time for the run's timeline (trace.json).
#pragma once

#include <exception>
#include <string_view>

#include "runtime/env.h"

namespace pstwin {

/// Reports [construction, destruction] of this scope as a span named `name` of this node to
/// env.metrics().span(), on env.now()'s clock (simulated seconds in simulation, the job's wall
/// clock in real runs). Names used by the roles: "compute", "wait_pull" (a worker waiting for the
/// parameters of its next clock: under BSP, the barrier), "push", "apply_push", "serve_pull",
/// "replicate" (a backup applying the primary's log), "failover" (a server taking in a new
/// membership), "checkpoint", "evaluate". A scope left by an exception reports nothing: the
/// node is failing, and in simulation its actor may be being killed. A sink that throws loses
/// the span; the exception goes no further.
/// REQUIRES: `name` outlives the scope (a string literal).
class SpanScope {
 public:
  SpanScope(Env& env, std::string_view name)
      : env_(env), name_(name), start_s_(env.now()), exceptions_(std::uncaught_exceptions()) {}
  ~SpanScope() {
    if (std::uncaught_exceptions() > exceptions_) return;
    try {
      env_.metrics().span(env_.self(), name_, start_s_, env_.now());
    } catch (...) {
      // A destructor must not throw, and a lost span is not worth ending the node: a sink that
      // forwards spans fails here only when its transport does, which the role's next send
      // reports with its own message.
    }
  }
  SpanScope(const SpanScope&) = delete;
  SpanScope& operator=(const SpanScope&) = delete;

 private:
  Env& env_;
  std::string_view name_;
  double start_s_;
  int exceptions_;
};

}  // namespace pstwin
