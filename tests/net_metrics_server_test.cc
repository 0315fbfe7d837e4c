// The live-metrics HTTP server (net/live_metrics.h): one job per port.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "net/live_metrics.h"

namespace pstwin::net {
namespace {

// Two jobs on one fixed metrics port would answer each other's scrapes in turn (httplib's default
// SO_REUSEPORT let the second bind): the second must be refused, naming the address.
TEST(MetricsServer, ASecondServerOnATakenPortIsRefused) {
  MetricsHttpServer first("127.0.0.1:0", [] { return std::string("a 1\n"); });
  const std::string url = first.url();  // http://127.0.0.1:PORT/metrics
  const std::string port = url.substr(url.rfind(':') + 1, url.find("/metrics") - url.rfind(':') - 1);
  const std::string address = "127.0.0.1:" + port;
  try {
    MetricsHttpServer second(address, [] { return std::string("b 1\n"); });
    FAIL() << "a second server bound " << address;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(address), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pstwin::net
