// An --out that would overwrite what the same command reads: refused before anything is written.
#pragma once

#include <string>
#include <vector>

namespace pstwin::cli {

/// A file a command reads, with what the user knows it as: "the scenario", "--hostfile".
struct CommandInput {
  std::string what;
  std::string path;
  /// It may lie inside an output folder: the run writes no file of its name there (a job key,
  /// which launch itself writes into OUT/<variant> for the scheduler it starts). It is still
  /// refused as the output folder itself.
  bool may_lie_inside = false;
};

/// What --out names: an output folder (simulate, sweep, launch, node), or a file (calibrate).
enum class OutKind { kFolder, kFile };

/// Why `out`, the output folder or file, may not be used, or "" when it may. Refused: an --out named
/// .pstwin.lock (the output lock's own file); an --out that is one of `inputs` (compared after
/// symbolic links and "..", so another spelling of the same file is found); for kFolder, an
/// input anywhere inside the folder (runs write variant folders and files of many names there,
/// and sweep clears its run folders); for kFile, an input that is one of `also_written` (files
/// written beside --out, calibrate's calibration.csv). Inputs that do not exist are skipped
/// (their own check says so). The text starts with `shown` and ": " (`shown` names where `out`
/// came from: "--out runs/x", or a default's origin); its advice names `out_flag` (the flag, or
/// the variable that gave the folder: PSTWIN_OUT). Never throws.
std::string out_overwrites_input(const std::string& out, const std::string& shown, OutKind kind,
                                 const std::vector<CommandInput>& inputs,
                                 const std::vector<std::string>& also_written = {},
                                 const std::string& out_flag = "--out");

/// How an output path is named in messages: "--out OUT" when the user gave it (`given`), else
/// "the default output folder OUT".
std::string shown_out(bool given, const std::string& out);

}  // namespace pstwin::cli
