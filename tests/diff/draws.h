// Random draws for the diff's simulation tests (fdr_sim_test.cpp,
// detect_test.cpp): a seeded 64-bit Mersenne Twister with uniform, normal and
// Poisson draws, the same on every platform (std::*_distribution is not).
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace kprof::difftest {

class Draws {
 public:
  explicit Draws(uint64_t seed) : gen_(seed) {}

  double uniform() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }  // [0, 1)

  uint64_t between(uint64_t lo, uint64_t hi) { return lo + gen_() % (hi - lo + 1); }

  double normal() {  // Box–Muller, both values used
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2 * std::log(1 - uniform()));
    const double t = 2 * std::numbers::pi * uniform();
    spare_ = r * std::sin(t);
    has_spare_ = true;
    return r * std::cos(t);
  }

  // Knuth's product of uniforms below a mean of 10; above, Hörmann's
  // transformed rejection (PTRS, Insurance: Math. and Econ. 12:39, 1993), O(1).
  uint64_t poisson(double mean) {
    if (mean <= 0) return 0;
    if (mean < 10) {
      const double limit = std::exp(-mean);
      uint64_t k = 0;
      for (double p = uniform(); p > limit; p *= uniform()) ++k;
      return k;
    }
    const double slam = std::sqrt(mean), loglam = std::log(mean);
    const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
      const double u = uniform() - 0.5, v = uniform(), us = 0.5 - std::fabs(u);
      const double k = std::floor((2 * a / us + b) * u + mean + 0.43);
      if (k < 0) continue;
      if (us >= 0.07 && v <= vr) return static_cast<uint64_t>(k);
      if (us < 0.013 && v > us) continue;
      if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <=
          -mean + k * loglam - std::lgamma(k + 1)) {
        return static_cast<uint64_t>(k);
      }
    }
  }

 private:
  std::mt19937_64 gen_;
  bool has_spare_ = false;
  double spare_ = 0;
};

}  // namespace kprof::difftest
