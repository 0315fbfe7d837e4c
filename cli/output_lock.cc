#include "cli/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/flag_source.h"

namespace fs = std::filesystem;

namespace pstwin::cli {

namespace {

constexpr const char* kLockName = ".pstwin.lock";
// The third word of a lock file whose holder writes only the folder's own files (calibrate): its
// lock does not cover the folders inside, so runs there go on.
constexpr const char* kFilesOnly = "files-only";
// How deep below a folder a held lock is looked for: a run's own sub-runs sit one level down
// (OUT/<variant>, a scheduler's) or two (a sweep's OUT/<setting>/<variant>); deeper folders are
// not searched, so an --out of a large tree (a home folder) costs no walk of all of it.
constexpr int kDescendantDepth = 3;

/// "pid P, pstwin COMMAND" from a lock file, or that its holder has not written it yet.
std::string holder_text(const std::string& pid, const std::string& command) {
  return pid.empty() ? std::string("its pid not written yet") : "pid " + pid + ", pstwin " + command;
}

/// The process that `pid` was started by, or 0 when it cannot be read (/proc/PID/stat's 4th
/// field; the 2nd, the command name, may hold spaces and parentheses, so it is skipped by its
/// last ')').
pid_t parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 1));
  char state = 0;
  pid_t parent = 0;
  rest >> state >> parent;
  return parent;
}

/// Whether `pid` is this process or one that started it (a launch whose scheduler node writes
/// into OUT/<variant>): a run's own sub-runs are not held off by its lock.
bool is_self_or_ancestor(pid_t pid) {
  for (pid_t p = ::getpid(); p > 1; p = parent_of(p))
    if (p == pid) return true;
  return false;
}

/// Whether `dir`/.pstwin.lock is held by a live process other than this one and those that
/// started it (and, with `enclosing`, by one whose lock covers the folders inside); `holder`
/// then names it. A lock nobody holds is taken shared for a moment and let go (flock cannot be
/// asked without trying).
bool held_by_another_run(const fs::path& dir, bool enclosing, std::string& holder) {
  const std::string path = (dir / kLockName).string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // no lock file, or one we cannot read: no run we could name
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases the shared lock, if it was taken
  if (!held) return false;
  std::ifstream in(path);
  std::string pid, command, scope;
  in >> pid >> command >> scope;
  if (enclosing && scope == kFilesOnly) return false;
  char* end = nullptr;
  const long number = pid.empty() ? 0 : std::strtol(pid.c_str(), &end, 10);
  if (number > 0 && end != nullptr && *end == '\0' && is_self_or_ancestor(static_cast<pid_t>(number))) return false;
  holder = holder_text(pid, command);
  return true;
}

/// Why `dir` (absolute and canonical) may not be locked because a folder enclosing it is held
/// by another live run; "" when none is.
std::string enclosing_holder(const fs::path& dir, const std::string& out_flag) {
  std::string holder;
  for (fs::path up = dir.parent_path(); !up.empty(); up = up.parent_path()) {
    if (held_by_another_run(up, /*enclosing=*/true, holder))
      return "output folder " + dir.string() + " is inside " + up.string() + ", which another run holds (" +
             holder + "); wait for it to end, or give this run an " + out_flag + " outside it";
    if (up == up.root_path()) break;
  }
  return "";
}

/// Why `dir` may not be locked because a folder inside it, down to kDescendantDepth, is held by
/// another live run; "" when none is.
std::string enclosed_holder(const fs::path& dir, const std::string& out_flag) {
  std::string holder;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_symlink(ec) || !it->is_directory(ec)) continue;
    if (it.depth() + 1 >= kDescendantDepth) it.disable_recursion_pending();
    if (held_by_another_run(it->path(), /*enclosing=*/false, holder))
      return "output folder " + dir.string() + " holds " + it->path().string() + ", which another run holds (" +
             holder + "); wait for it to end, or give this run another " + out_flag;
  }
  return "";
}

}  // namespace

std::optional<OutputLock> OutputLock::take(const std::string& dir, const std::string& command,
                                           std::string& error, Scope scope, const std::string& out_flag) {
  std::error_code ec;
  // A folder a variable gave is named with it: the user may never have typed --out.
  const std::string origin = from_variable(out_flag);
  // Before the folder is made: a run refused here leaves nothing inside the holder's folder.
  const fs::path canonical = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (const std::string enclosing = enclosing_holder(ec ? fs::path(dir) : canonical, out_flag); !enclosing.empty()) {
    error = enclosing;
    return std::nullopt;
  }
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create output folder " + dir + origin + ": " + ec.message();
    return std::nullopt;
  }
  const std::string path = dir + "/" + kLockName;
  // O_NOFOLLOW: a link planted at OUT/.pstwin.lock is refused, not written through.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = errno == ELOOP ? "cannot open " + path + origin +
                                 ": it is a symbolic link; pstwin does not write through links, "
                                 "remove it"
                           : "cannot open " + path + origin + ": " + std::strerror(errno);
    return std::nullopt;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int why = errno;
    ::close(fd);
    if (why != EWOULDBLOCK) {
      error = "cannot lock " + path + origin + ": " + std::strerror(why);
      return std::nullopt;
    }
    // The holder wrote "PID COMMAND" once it had the lock; a run that is just starting may not
    // have yet.
    std::ifstream in(path);
    std::string pid, holder;
    in >> pid >> holder;
    error = "output folder " + dir + origin + " is in use by another run (" + holder_text(pid, holder) +
            "); wait for it to end, or give this run another " + out_flag;
    return std::nullopt;
  }
  std::ostringstream text;
  text << ::getpid() << ' ' << command << (scope == Scope::kFilesOnly ? std::string(" ") + kFilesOnly : "") << '\n';
  const std::string line = text.str();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    error = "cannot write " + path + origin + ": " + std::strerror(errno);
    ::close(fd);
    return std::nullopt;
  }
  // Checked with this folder's own lock held and named, so that a run starting now inside it
  // finds this one.
  if (const std::string enclosed =
          scope == Scope::kFilesOnly ? "" : enclosed_holder(canonical.empty() ? fs::path(dir) : canonical, out_flag);
      !enclosed.empty()) {
    ::close(fd);
    error = enclosed;
    return std::nullopt;
  }
  return OutputLock(fd);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock; the file stays, harmless
}

}  // namespace pstwin::cli
