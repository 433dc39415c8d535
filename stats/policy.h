// Inside stats/: the Boost.Math error policy every distribution here is used
// with. Included by stats/*.cpp only (the headers say what the
// functions return at their edges; Boost stays out of them).
//
// Nothing throws and nothing sets errno: a domain error gives NaN, an
// overflow +-inf, an underflow 0, so the callers' own edge handling (written
// out where each function is defined) decides, as it did before Boost.
//
// Policy computes doubles in long double (Boost's default), so quantiles and
// tails are right to the last bit or two even where the tail is a denormal.
// FastPolicy computes in double: for Phi in the power integration's inner
// loop (stats/power.cpp), called 1,600 times per power evaluation, where
// long double is several times slower for nothing that is printed.
#pragma once

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/non_central_t.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <boost/math/policies/policy.hpp>

namespace kprof::stats::detail {

namespace bmp = boost::math::policies;

using Policy =
    bmp::policy<bmp::domain_error<bmp::ignore_error>, bmp::pole_error<bmp::ignore_error>,
                bmp::overflow_error<bmp::ignore_error>, bmp::underflow_error<bmp::ignore_error>,
                bmp::denorm_error<bmp::ignore_error>, bmp::evaluation_error<bmp::ignore_error>,
                bmp::rounding_error<bmp::ignore_error>,
                bmp::indeterminate_result_error<bmp::ignore_error>>;
using FastPolicy = bmp::normalise<Policy, bmp::promote_double<false>>::type;

using Normal = boost::math::normal_distribution<double, Policy>;
using FastNormal = boost::math::normal_distribution<double, FastPolicy>;
using StudentsT = boost::math::students_t_distribution<double, Policy>;
using ChiSquared = boost::math::chi_squared_distribution<double, Policy>;
using FisherF = boost::math::fisher_f_distribution<double, Policy>;
using NonCentralT = boost::math::non_central_t_distribution<double, Policy>;

}  // namespace kprof::stats::detail
