// Waiting a few microseconds awake before going to sleep: how an in-process hand-off avoids the
// cost of waking a sleeping thread (DESIGN.md, "The hot path").
#pragma once

#include <chrono>

namespace pstwin::net {

/// How long a waiter stays awake before it sleeps. An idle vCPU of a VM halts, and waking it
/// costs tens of microseconds (about 35 us measured on this project's 2-core Firecracker machine,
/// where the guest does not poll before halting); a push + pull of 1K values in process takes a
/// few microseconds of work. 50 us catches a reply that is on its way and bounds what a wait for
/// one that is not (a long compute, a barrier) costs: 50 us of one CPU.
inline constexpr std::chrono::microseconds kSpinBeforeSleep{50};

/// Tells the CPU this is a wait loop (x86's PAUSE): less power, and the other hyperthread of the
/// core runs faster.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/// Calls `ready` until it returns true or `budget` has passed. Returns ready()'s last answer:
/// true when the wait is over without sleeping, false when the caller should block. `ready` must
/// be cheap and thread-safe (an atomic load). A budget of zero or less calls it once.
/// Why it keeps the CPU rather than yielding it between calls: on a loaded machine a yield hands
/// the CPU to whatever else is runnable, for a whole time slice (milliseconds: seen as 5 ms per
/// in-process push + pull with 15 compilers running); a spin that keeps the CPU costs at most its
/// budget.
template <class Ready>
bool spin_briefly(Ready&& ready, std::chrono::nanoseconds budget = kSpinBeforeSleep) {
  const auto until = std::chrono::steady_clock::now() + budget;
  for (;;) {
    if (ready()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    cpu_relax();
  }
}

/// Whether a waiter should spin before it sleeps, wait by wait, for one waiting thread. Spinning
/// pays on an idle machine, where the thread it waits for runs on another CPU and answers within
/// microseconds; on a loaded one it costs, since that thread may be waiting for this very CPU
/// (seen as 300 us per in-process push + pull instead of 15 us, with 13 other processes running).
/// So a waiter spins while its spins pay (the last one ended with the wait over), and after one
/// that did not, only every kProbeEvery-th wait, to find out whether spinning pays again.
/// Not thread-safe: one per waiting thread (an in-process node's queue has one taker).
class SpinPolicy {
 public:
  static constexpr unsigned kProbeEvery = 64;
  /// Whether the next wait should spin.
  bool should_spin() { return paid_ || ++unpaid_waits_ % kProbeEvery == 0; }
  /// Says how the spin went: `paid` when it ended the wait without sleeping.
  void spun(bool paid) {
    paid_ = paid;
    unpaid_waits_ = 0;
  }

 private:
  bool paid_ = true;  // the first wait spins
  unsigned unpaid_waits_ = 0;
};

}  // namespace pstwin::net
