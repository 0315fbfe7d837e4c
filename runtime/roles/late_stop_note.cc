#include "runtime/roles/late_stop_note.h"

#include "runtime/count_text.h"

namespace pstwin {

std::string late_stop_note(const std::string& stop_rule, std::uint64_t iterations, const std::string& why) {
  const std::string done = !stop_rule.empty() ? "its " + stop_rule + " rule had ended training"
                                              : "all " + count_text(iterations, "clock") + " done";
  return "the job had completed (" + done + ") when it was " + why + ": the signal came after completion";
}

}  // namespace pstwin
