// SimGrid's own options (sim/simgrid_options.h): SimGrid's verdict on each, obtained in a child
// process so that options it answers with xbt_die end the child, not the caller.
#include <gtest/gtest.h>

#include <string>

#include "sim/simgrid_options.h"

namespace pstwin {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SimGridOptions, AcceptsWhatSimGridTakes) {
  for (const char* ok : {"network/model:CM02", "network/model:SMPI", "contexts/factory:thread",
                         "contexts/factory:ucontext", "network/crosstraffic:0",
                         "maxmin/precision:1e-6", "surf/precision:1e-10", "network/TCP-gamma:65536"})
    EXPECT_EQ(simgrid_option_refusal(ok), "") << ok;
}

TEST(SimGridOptions, UnknownNameIsNamedWithItsNeighbours) {
  EXPECT_EQ(simgrid_option_refusal("bogus/name:1"),
            "SimGrid has no option named \"bogus/name\" (README, \"SimGrid options\", names the "
            "useful ones)");
  const std::string typo = simgrid_option_refusal("network/modle:CM02");
  EXPECT_TRUE(contains(typo, "no option named \"network/modle\"; under network/ it has ")) << typo;
  EXPECT_TRUE(contains(typo, "network/model,")) << typo;
}

TEST(SimGridOptions, ValueOfTheWrongTypeIsRefused) {
  EXPECT_EQ(simgrid_option_refusal("maxmin/precision:abc"),
            "SimGrid refused the value \"abc\": invalid double");
  EXPECT_EQ(simgrid_option_refusal("network/crosstraffic:maybe"),
            "SimGrid refused the value \"maybe\": not a boolean");
}

// SimGrid answers these by ending the process (xbt_die); the caller lives on and gets its words.
TEST(SimGridOptions, ChoicesSimGridDiesOnAreRefusedWithItsMessage) {
  EXPECT_EQ(simgrid_option_refusal("network/model:Foo"),
            "Model 'Foo' is invalid! Valid models are: LV08, Constant, SMPI, IB, CM02, ns-3.");
  const std::string factory = simgrid_option_refusal("contexts/factory:nope");
  EXPECT_TRUE(contains(factory, "Invalid context factory specified")) << factory;
  EXPECT_TRUE(contains(factory, "thread: ")) << factory;
  const std::string optim = simgrid_option_refusal("cpu/optim:foo");
  EXPECT_TRUE(contains(optim, "Invalid value 'foo' for option cpu/optim. Possible values: 'Full'"))
      << optim;
  // Valid names for SimGrid, but not on pstwin's star of links: tried on that platform.
  EXPECT_TRUE(contains(simgrid_option_refusal("network/model:ns-3"), "unknown to ns-3"));
  EXPECT_TRUE(contains(simgrid_option_refusal("network/model:Constant"), "no link in the Constant"));
}

TEST(SimGridOptions, MisspellingIsRefusedWithoutAskingSimGrid) {
  EXPECT_TRUE(contains(simgrid_option_refusal("nocolon"), "expected NAME:VALUE"));
  EXPECT_TRUE(contains(simgrid_option_refusal("network/model:help"), "\"help\" is not a value"));
}

TEST(SimGridOptions, EngineArgumentsCarryEachOptionInOrder) {
  SimGridArgs args({"network/model:CM02", "contexts/factory:thread"});
  ASSERT_EQ(*args.argc(), 4);
  EXPECT_STREQ(args.argv()[0], "pstwin");
  EXPECT_STREQ(args.argv()[1], "--log=root.thresh:critical");
  EXPECT_STREQ(args.argv()[2], "--cfg=network/model:CM02");
  EXPECT_STREQ(args.argv()[3], "--cfg=contexts/factory:thread");
  EXPECT_EQ(args.argv()[4], nullptr);
  try {
    SimGridArgs bad({"network/model:CM02", "network/model:Foo"});
    FAIL() << "network/model:Foo was taken";
  } catch (const SimGridOptionError& e) {
    EXPECT_EQ(e.option(), "network/model:Foo");
    EXPECT_TRUE(contains(e.what(), "SimGrid option network/model:Foo: Model 'Foo' is invalid")) << e.what();
  }
}

}  // namespace
}  // namespace pstwin
