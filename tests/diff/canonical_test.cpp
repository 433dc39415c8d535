// Canonical names: table-driven, on real kernel names with clone suffixes.
#include "report/canonical.h"

#include <gtest/gtest.h>

namespace kprof {
namespace {

struct Case {
  const char* raw;
  const char* canonical;
};

class CanonicalName : public ::testing::TestWithParam<Case> {};

TEST_P(CanonicalName, DropsCloneSuffixesOnly) {
  EXPECT_EQ(canonical_name(GetParam().raw), GetParam().canonical) << GetParam().raw;
}

INSTANTIATE_TEST_SUITE_P(
    KernelNames, CanonicalName,
    ::testing::Values(
        // Plain names are unchanged.
        Case{"schedule", "schedule"}, Case{"__blockdev_direct_IO", "__blockdev_direct_IO"},
        Case{"[unknown]", "[unknown]"}, Case{"<dbms>", "<dbms>"},
        // One suffix (names from /proc/kallsyms of distro kernels).
        Case{"rcu_gp_kthread.isra.0", "rcu_gp_kthread"},
        Case{"kmem_cache_alloc_node.constprop.0", "kmem_cache_alloc_node"},
        Case{"__split_vma.part.0", "__split_vma"}, Case{"do_syscall_64.cold", "do_syscall_64"},
        Case{"copy_page_range.cold.12", "copy_page_range"},
        Case{"sched_ttwu_pending.llvm.1234567890123", "sched_ttwu_pending"},
        Case{"lookup_fast.lto_priv.0", "lookup_fast"},
        Case{"ext4_es_insert_extent.localalias", "ext4_es_insert_extent"},
        // Combinations, any order.
        Case{"count.isra.17.constprop.23", "count"},
        Case{"blk_mq_dispatch_rq_list.constprop.0.isra.0", "blk_mq_dispatch_rq_list"},
        Case{"tcp_sendmsg_locked.part.0.cold", "tcp_sendmsg_locked"},
        Case{"__do_sys_newfstatat.isra.0.cold.3", "__do_sys_newfstatat"},
        // Demangled C++ clones.
        Case{"foo(int, char const*) [clone .isra.0]", "foo(int, char const*)"},
        Case{"Bar::run() [clone .cold] [clone .constprop.1]", "Bar::run()"},
        // Not clone suffixes: left alone.
        Case{"__func__.12345", "__func__.12345"}, Case{"foo.llvm", "foo.llvm"},
        Case{"fs.coldplug", "fs.coldplug"}, Case{"acpi_os_partition", "acpi_os_partition"},
        Case{"file.isradar", "file.isradar"}, Case{".cold", ".cold"}, Case{".isra.0", ".isra.0"},
        Case{"", ""}));

// Issue 23, item 8: a function is named on the command line without its
// parameters, or by its last component.
TEST(NamesFunction, WithoutParametersOrQualifiers) {
  const std::string f = "ns::Box<long>::work(long)";
  EXPECT_TRUE(names_function(f, f));
  EXPECT_TRUE(names_function(f, "ns::Box<long>::work"));
  EXPECT_TRUE(names_function(f, "work"));
  EXPECT_TRUE(names_function("ns::Box<long>::work(long) const [clone .isra.0]", "work"));
  EXPECT_TRUE(names_function("Foo::operator()(int)", "Foo::operator()"));
  EXPECT_TRUE(names_function("kfree.cold", "kfree"));
  EXPECT_FALSE(names_function(f, "wor"));
  EXPECT_FALSE(names_function(f, "Box<long>"));
  EXPECT_FALSE(names_function(f, ""));
  EXPECT_FALSE(names_function("std::vector<ns::work>::push_back(int)", "work"));
}

TEST(NamesFunction, ClosestNamesContainingFirstThenByDistance) {
  const std::vector<std::string_view> names = {"ns::Box<long>::work(long)",
                                               "main",
                                               "worker_loop",
                                               "schedule",
                                               "__schedule",
                                               "zzzz_unrelated"};
  EXPECT_EQ(closest_names(names, "wrok"), (std::vector<std::string>{"ns::Box<long>::work(long)"}));
  EXPECT_EQ(closest_names(names, "sched"), (std::vector<std::string>{"__schedule", "schedule"}));
  EXPECT_EQ(closest_names(names, "work"),
            (std::vector<std::string>{"ns::Box<long>::work(long)", "worker_loop"}));
  EXPECT_TRUE(closest_names(names, "qqqqqqqqqq").empty());
}

}  // namespace
}  // namespace kprof
