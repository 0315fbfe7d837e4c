// Fuzz target: the scenario validator, parse_scenario_text (runtime/scenario/scenario.h), as
// `pstwin validate` runs it. The input is the scenario's text, optionally followed by a NUL byte
// and --set overrides, one per line. Every rejection must be a ScenarioError naming where.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/errors.h"
#include "runtime/scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  std::vector<std::string> overrides;
  if (nul != std::string_view::npos) {
    std::string_view rest = input.substr(nul + 1);
    while (!rest.empty()) {
      const std::size_t nl = rest.find('\n');
      overrides.emplace_back(rest.substr(0, nl));
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
  }
  try {
    // A folder that does not exist: relative data paths stay as written, whatever is on disk.
    pstwin::parse_scenario_text(text, "fuzz.json", overrides, "/nonexistent-pstwin-fuzz");
  } catch (const pstwin::ScenarioError&) {
    // rejected with a JSON pointer and a reason
  }
  return 0;
}
