// ServerOptimizer (runtime/optimizer.h): each rule against its closed form for a few steps, the
// meaning of the step scale for the adaptive rules, convergence on a small quadratic, and errors.
#include "runtime/optimizer.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace pstwin {
namespace {

std::unique_ptr<KernelBackend> cpu() { return make_cpu_backend(); }

/// Relative-or-absolute float comparison for results computed in float against double.
void expect_close(const std::vector<float>& got, const std::vector<double>& want, double tol,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1.0 + std::fabs(want[i]))) << what << ", element " << i;
}

TEST(ServerOptimizer, SgdAndMomentumMatchTheirClosedFormsWithAScaledStep) {
  auto k = cpu();
  const std::vector<float> g = {1.0f, -2.0f, 0.5f};
  const double lr = 0.1, mu = 0.5, s = 0.25;
  std::vector<float> w_sgd = {1, 2, 3}, w_mom = {1, 2, 3};
  ServerOptimizer sgd("sgd", lr, 0.0, g.size());
  ServerOptimizer mom("momentum", lr, mu, g.size());
  for (int t = 1; t <= 3; ++t) {
    sgd.apply(*k, w_sgd.data(), g.data(), s);
    mom.apply(*k, w_mom.data(), g.data(), s);
  }
  // Constant g: v_t = g (1 + mu + ... + mu^(t-1)); w_3 = w_0 - lr s g (1 + 1.5 + 1.75).
  std::vector<double> want_sgd, want_mom;
  for (std::size_t i = 0; i < g.size(); ++i) {
    want_sgd.push_back(1.0 + i - 3 * lr * s * g[i]);
    want_mom.push_back(1.0 + i - lr * s * g[i] * (1.0 + 1.5 + 1.75));
  }
  expect_close(w_sgd, want_sgd, 1e-6, "sgd");
  expect_close(w_mom, want_mom, 1e-6, "momentum");
}

TEST(ServerOptimizer, AdagradMatchesItsClosedFormForAConstantGradient) {
  auto k = cpu();
  const std::vector<float> g = {1.0f, -2.0f, 0.01f, 0.0f};
  const double lr = 0.3, eps = 1e-8, s = 0.5;
  std::vector<float> w(g.size(), 1.0f);
  ServerOptimizer opt(OptimizerSpec{.kind = "adagrad", .epsilon = eps}, lr, 0.0, g.size());
  std::vector<double> want(g.size(), 1.0);
  for (int t = 1; t <= 4; ++t) {
    opt.apply(*k, w.data(), g.data(), s);
    // h_t = t (s g)^2, so step t is lr s g / (sqrt(t) |s g| + eps).
    for (std::size_t i = 0; i < g.size(); ++i) {
      const double gs = s * g[i];
      want[i] -= lr * gs / (std::sqrt(double(t)) * std::fabs(gs) + eps);
    }
    expect_close(w, want, 1e-6, "adagrad step " + std::to_string(t));
  }
}

/// Algorithm 1 of Kingma and Ba (2015) in double, for one parameter vector.
struct ReferenceAdam {
  double lr, b1, b2, eps;
  std::vector<double> w, m, v;
  int t = 0;
  void step(const std::vector<double>& g) {
    ++t;
    for (std::size_t i = 0; i < w.size(); ++i) {
      m[i] = b1 * m[i] + (1 - b1) * g[i];
      v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
      const double m_hat = m[i] / (1 - std::pow(b1, t)), v_hat = v[i] / (1 - std::pow(b2, t));
      w[i] -= lr * m_hat / (std::sqrt(v_hat) + eps);
    }
  }
};

TEST(ServerOptimizer, AdamMatchesAlgorithm1OfKingmaAndBa) {
  auto k = cpu();
  const OptimizerSpec spec{.kind = "adam", .beta1 = 0.8, .beta2 = 0.99, .epsilon = 1e-6};
  const double lr = 0.05, s = 0.5;
  std::vector<float> w = {0.5f, -1.0f, 2.0f};
  ServerOptimizer opt(spec, lr, 0.0, w.size());
  ReferenceAdam ref{lr, spec.beta1, spec.beta2, spec.epsilon, {0.5, -1.0, 2.0}, {0, 0, 0}, {0, 0, 0}};
  const std::vector<std::vector<float>> grads = {{1.0f, -3.0f, 0.1f}, {-0.5f, 2.0f, 0.1f},
                                                 {0.25f, -1.0f, -4.0f}, {2.0f, 0.0f, 1.0f}};
  for (const auto& g : grads) {
    opt.apply(*k, w.data(), g.data(), s);
    ref.step({s * g[0], s * g[1], s * g[2]});  // the step scale multiplies the gradient
    expect_close(w, ref.w, 1e-6, "adam step " + std::to_string(ref.t));
  }
  EXPECT_EQ(opt.steps(), grads.size());
}

TEST(ServerOptimizer, AdamStepsAreLrTimesSignForAConstantGradient) {
  // With a constant g the bias-corrected moments are exactly g and g^2, so every step is
  // lr * g / (|g| + eps), from the first on: the bias correction at work.
  auto k = cpu();
  const std::vector<float> g = {3.0f, -0.02f};
  std::vector<float> w = {0.0f, 0.0f};
  ServerOptimizer opt("adam", 0.01, 0.0, g.size());
  for (int t = 1; t <= 5; ++t) {
    opt.apply(*k, w.data(), g.data(), 1.0);
    expect_close(w, {-0.01 * t * 3.0 / (3.0 + 1e-8), 0.01 * t * 0.02 / (0.02 + 1e-8)}, 1e-5,
                 "step " + std::to_string(t));
  }
}

TEST(ServerOptimizer, AdaptiveRulesScaleTheGradientNotTheStep) {
  auto k = cpu();
  const std::vector<float> g = {0.3f, -1.5f, 2.0f};
  const std::vector<float> g_scaled = {0.3f * 0.125f, -1.5f * 0.125f, 2.0f * 0.125f};
  for (const std::string kind : {"adagrad", "adam"}) {
    std::vector<float> w1 = {1, 1, 1}, w2 = {1, 1, 1};
    ServerOptimizer a(kind, 0.1, 0.0, 3), b(kind, 0.1, 0.0, 3);
    for (int t = 0; t < 3; ++t) {
      a.apply(*k, w1.data(), g.data(), 0.125);
      b.apply(*k, w2.data(), g_scaled.data(), 1.0);
    }
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(w1[i], w2[i]) << kind << ", element " << i;
  }
}

TEST(ServerOptimizer, KernelCostsFollowTheDocumentedFormulas) {
  auto k = cpu();
  const std::size_t n = 1000;
  std::vector<float> w(n, 1.0f), g(n, 0.1f);
  ServerOptimizer adagrad("adagrad", 0.1, 0.0, n), adam("adam", 0.1, 0.0, n);
  const Cost ca = adagrad.apply(*k, w.data(), g.data(), 1.0);
  const Cost cm = adam.apply(*k, w.data(), g.data(), 1.0);
  EXPECT_DOUBLE_EQ(ca.flops, 8.0 * n);
  EXPECT_DOUBLE_EQ(ca.bytes, 20.0 * n);
  EXPECT_DOUBLE_EQ(cm.flops, 15.0 * n);
  EXPECT_DOUBLE_EQ(cm.bytes, 28.0 * n);
}

/// f(w) = 1/2 sum_i a_i (w_i - c_i)^2, condition number 20; returns f after `steps` steps.
double minimise_quadratic(ServerOptimizer& opt, int steps, std::vector<float>& w) {
  auto k = cpu();
  const std::vector<double> a = {0.25, 1.0, 5.0, 2.0}, c = {1.0, -2.0, 0.5, 3.0};
  w.assign(a.size(), 0.0f);
  std::vector<float> g(a.size());
  auto f = [&] {
    double sum = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) sum += 0.5 * a[i] * (w[i] - c[i]) * (w[i] - c[i]);
    return sum;
  };
  for (int t = 0; t < steps; ++t) {
    for (std::size_t i = 0; i < a.size(); ++i) g[i] = static_cast<float>(a[i] * (w[i] - c[i]));
    opt.apply(*k, w.data(), g.data(), 1.0);
  }
  return f();
}

TEST(ServerOptimizer, EachRuleConvergesOnASmallQuadratic) {
  // f at w = 0 is 1/2 (0.25 + 4 + 1.25 + 18) = 11.75.
  struct Case {
    OptimizerSpec spec;
    double lr, mu;
  };
  const std::vector<Case> cases = {{{.kind = "sgd"}, 0.3, 0.0},
                                   {{.kind = "momentum"}, 0.1, 0.9},
                                   {{.kind = "adagrad"}, 1.0, 0.0},
                                   {{.kind = "adam"}, 0.05, 0.0}};
  for (const Case& c : cases) {
    ServerOptimizer opt(c.spec, c.lr, c.mu, 4);
    std::vector<float> w;
    const double f = minimise_quadratic(opt, 2000, w);
    EXPECT_LT(f, 1e-6) << c.spec.kind << " ends at f = " << f << ", w = " << w[0] << ", " << w[1]
                       << ", " << w[2] << ", " << w[3];
  }
}

TEST(ServerOptimizer, RejectsUnknownKindsAndImpossibleHyperparameters) {
  EXPECT_THROW(ServerOptimizer("rmsprop", 0.1, 0.0, 4), std::invalid_argument);
  EXPECT_THROW(ServerOptimizer(OptimizerSpec{.kind = "adam", .beta1 = 1.0}, 0.1, 0.0, 4),
               std::invalid_argument);
  EXPECT_THROW(ServerOptimizer(OptimizerSpec{.kind = "adam", .beta2 = -0.1}, 0.1, 0.0, 4),
               std::invalid_argument);
  EXPECT_THROW(ServerOptimizer(OptimizerSpec{.kind = "adagrad", .epsilon = 0.0}, 0.1, 0.0, 4),
               std::invalid_argument);
  // SGD ignores the adaptive hyperparameters, whatever they hold.
  EXPECT_NO_THROW(ServerOptimizer(OptimizerSpec{.kind = "sgd", .beta1 = 2.0}, 0.1, 0.0, 4));
  auto k = cpu();
  float w = 0, m = 0, v = 0, g = 1;
  EXPECT_THROW(k->adam_update(&w, &m, &v, &g, 1, 0.1f, 0.9f, 0.999f, 1e-8f, 0, 1.0f),
               std::invalid_argument);
}

TEST(ServerOptimizer, ApplyRowsUpdatesListedRowsAsApplyWouldAndLeavesTheRestAlone) {
  // A shard of 6 rows of 3 floats; rows 1, 2 and 5 get a gradient (1-2 is a run of two).
  auto k = cpu();
  const std::vector<std::uint32_t> rows = {1, 2, 5};
  const std::vector<float> g = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  for (const char* kind : {"sgd", "momentum", "adagrad", "adam"}) {
    ServerOptimizer sparse(OptimizerSpec{.kind = kind}, 0.1, 0.9, 18);
    ServerOptimizer dense(OptimizerSpec{.kind = kind}, 0.1, 0.9, 18);
    std::vector<float> ws(18, 1.0f), wd(18, 1.0f), gd(18, 0.0f);
    for (std::size_t j = 0; j < rows.size(); ++j)
      for (std::size_t c = 0; c < 3; ++c) gd[rows[j] * 3 + c] = g[j * 3 + c];
    for (int step = 0; step < 3; ++step) {
      sparse.apply_rows(*k, ws.data(), g.data(), rows.data(), rows.size(), 3, 0.5);
      dense.apply(*k, wd.data(), gd.data(), 0.5);
    }
    // The listed rows match a dense step with zeros elsewhere; the other rows never moved.
    for (std::size_t i = 0; i < 18; ++i) {
      const bool listed = i / 3 == 1 || i / 3 == 2 || i / 3 == 5;
      if (listed) EXPECT_EQ(ws[i], wd[i]) << kind << " element " << i;
      else EXPECT_EQ(ws[i], 1.0f) << kind << " element " << i;
    }
    EXPECT_EQ(sparse.steps(), 3u);
  }
  ServerOptimizer opt("sgd", 0.1, 0.0, 18);
  std::vector<float> w(18, 0.0f);
  const std::vector<std::uint32_t> unsorted = {2, 1}, outside = {6};
  EXPECT_THROW(opt.apply_rows(*k, w.data(), g.data(), unsorted.data(), 2, 3, 1.0),
               std::invalid_argument);
  EXPECT_THROW(opt.apply_rows(*k, w.data(), g.data(), outside.data(), 1, 3, 1.0),
               std::invalid_argument);
}

TEST(ServerOptimizer, RestoredStateContinuesBitIdentically) {
  // k steps on A, A's state copied into a fresh B (with A's weights), then one more identical
  // step on both: the weights agree bit for bit, so a checkpoint loses nothing.
  auto k = cpu();
  const std::vector<std::vector<float>> grads = {{1.0f, -3.0f, 0.1f, 2.5f},
                                                 {-0.5f, 2.0f, 0.1f, -1.0f},
                                                 {0.25f, -1.0f, -4.0f, 0.0f}};
  const std::vector<float> last = {0.7f, 0.3f, -2.0f, 1.25f};
  for (const char* kind : {"sgd", "momentum", "adagrad", "adam"}) {
    ServerOptimizer a(OptimizerSpec{.kind = kind}, 0.05, 0.9, 4);
    std::vector<float> wa = {0.5f, -1.0f, 2.0f, 0.0f};
    for (const auto& g : grads) a.apply(*k, wa.data(), g.data(), 0.5);
    std::vector<float> wb = wa;
    ServerOptimizer b(OptimizerSpec{.kind = kind}, 0.05, 0.9, 4);
    const OptimizerState st = a.state();
    EXPECT_EQ(st.steps, grads.size()) << kind;
    EXPECT_EQ(st.first.size(), std::string(kind) == "sgd" ? 0u : 4u) << kind;
    EXPECT_EQ(st.second.size(), std::string(kind) == "adam" ? 4u : 0u) << kind;
    b.restore(st);
    EXPECT_EQ(b.steps(), a.steps()) << kind;
    a.apply(*k, wa.data(), last.data(), 0.5);
    b.apply(*k, wb.data(), last.data(), 0.5);
    for (std::size_t i = 0; i < wa.size(); ++i)
      EXPECT_EQ(std::bit_cast<std::uint32_t>(wa[i]), std::bit_cast<std::uint32_t>(wb[i]))
          << kind << ", element " << i;
  }
}

TEST(ServerOptimizer, RestoreRejectsStateOfTheWrongShape) {
  ServerOptimizer sgd("sgd", 0.1, 0.0, 4), mom("momentum", 0.1, 0.9, 4), adam("adam", 0.1, 0.0, 4);
  EXPECT_NO_THROW(sgd.restore({}));
  EXPECT_THROW(sgd.restore({.first = std::vector<float>(4), .second = {}}), std::invalid_argument);
  EXPECT_THROW(mom.restore({}), std::invalid_argument);
  EXPECT_THROW(mom.restore({.first = std::vector<float>(3), .second = {}}), std::invalid_argument);
  EXPECT_THROW(mom.restore({.first = std::vector<float>(4), .second = std::vector<float>(4)}),
               std::invalid_argument);
  EXPECT_THROW(adam.restore({.first = std::vector<float>(4), .second = {}}), std::invalid_argument);
  try {
    adam.restore({.first = std::vector<float>(4), .second = std::vector<float>(5), .steps = 2});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("adam"), std::string::npos) << what;
    EXPECT_NE(what.find("second"), std::string::npos) << what;
    EXPECT_NE(what.find("5"), std::string::npos) << what;
  }
  EXPECT_EQ(adam.steps(), 0u);  // a rejected restore changes nothing
}

}  // namespace
}  // namespace pstwin
