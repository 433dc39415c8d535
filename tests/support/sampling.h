// Whether this process may sample with perf_event_open, for the tests that
// record. Only a refusal for permission (EACCES, EPERM) is a reason to skip;
// any other error (EINVAL from a wrong attr, ENOENT, ENODEV, ...) means
// sampling is broken, and the test fails rather than skipping.
#pragma once

#include <string>

#include <gtest/gtest.h>

namespace kprof::test {

// "EACCES (Permission denied)": the errno's name and its meaning.
std::string errno_text(int err);

struct SamplingCheck {
  enum class Kind { Ok, NotPermitted, Broken };
  Kind kind = Kind::Ok;
  std::string why;  // "" when Ok; else what perf_event_open said and what it means
};

// Opens (and closes) a user-space cpu-clock sampling event on this process,
// as every recording test needs.
SamplingCheck check_sampling();

}  // namespace kprof::test

// In a test body or SetUp(): skips when sampling is not permitted here, fails
// when it is broken. (A macro: GTEST_SKIP and FAIL return from the caller.)
#define KPROF_REQUIRE_SAMPLING()                                                       \
  do {                                                                                 \
    const ::kprof::test::SamplingCheck kprof_check_ = ::kprof::test::check_sampling(); \
    if (kprof_check_.kind == ::kprof::test::SamplingCheck::Kind::Broken)               \
      FAIL() << kprof_check_.why;                                                      \
    if (kprof_check_.kind == ::kprof::test::SamplingCheck::Kind::NotPermitted)         \
      GTEST_SKIP() << kprof_check_.why;                                                \
  } while (0)
