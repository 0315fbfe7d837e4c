// A probe for platform tests: the route SimGrid computes between two nodes of a scenario's
// platform, and the simulated time of one message along it. Each probe runs in a child process,
// because SimGrid allows one engine per process (and its fat tree one per process too).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "runtime/scenario/scenario.h"
#include "sim/platform.h"

namespace pstwin::testing_support {

/// What one message from one node to another meets.
struct Probe {
  std::vector<std::string> links;  ///< names, in route order
  double latency_s = 0;            ///< the route's latency as SimGrid sums it (no factors)
  double time_s = 0;               ///< simulated seconds from put to delivery
  bool ok = false;
};

/// Builds `scenario`'s platform under SimGrid options `cfg` and sends `bytes` from node `from`
/// to node `to` (NodeIds of JobLayout{servers, workers}). `ok` is false when the child failed.
inline Probe probe_route(const nlohmann::json& scenario, NodeId from, NodeId to, double bytes,
                         const std::vector<std::string>& cfg = {"network/model:CM02"}) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  std::fflush(nullptr);  // the child must not print what the parent had buffered
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    nlohmann::json out;
    try {
      const Scenario s = parse_scenario(scenario);
      std::vector<std::string> args = {"probe", "--log=root.thresh:critical"};
      for (const auto& c : cfg) args.push_back("--cfg=" + c);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      int argc = static_cast<int>(args.size());
      simgrid::s4u::Engine engine(&argc, argv.data());
      JobLayout layout;
      layout.servers = s.cluster.servers;
      layout.workers = s.cluster.workers;
      const auto hosts = build_platform(s.cluster, layout);
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      hosts[from]->route_to(hosts[to], links, &latency);
      for (auto* l : links) out["links"].push_back(l->get_name());
      out["latency"] = latency;
      static int payload = 0;
      simgrid::s4u::Actor::create("from", hosts[from], [bytes] {
        simgrid::s4u::Mailbox::by_name("probe")->put(&payload, static_cast<uint64_t>(bytes));
      });
      double done = 0;
      simgrid::s4u::Actor::create("to", hosts[to], [&done] {
        simgrid::s4u::Mailbox::by_name("probe")->get<int>();
        done = simgrid::s4u::Engine::get_clock();
      });
      engine.run();
      out["time"] = done;
    } catch (const std::exception& e) {
      out["error"] = e.what();
    }
    const std::string text = out.dump();
    if (write(fds[1], text.data(), text.size()) < 0) _exit(3);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  Probe p;
  if (text.empty()) return p;
  const auto j = nlohmann::json::parse(text);
  if (j.contains("error")) {
    ADD_FAILURE() << "probe failed: " << j["error"].get<std::string>();
    return p;
  }
  if (j.contains("links"))
    for (const auto& l : j["links"]) p.links.push_back(l.get<std::string>());
  p.latency_s = j["latency"].get<double>();
  p.time_s = j["time"].get<double>();
  p.ok = true;
  return p;
}

}  // namespace pstwin::testing_support
