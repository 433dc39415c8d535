// importer::with_boot_kallsyms (importer/import.h): a kprof profile cut short
// before its kernel symbols were written is named from this boot's cached
// snapshot when it is the one the recording started with, and otherwise
// says why its kernel functions stay unnamed.
#include <string>

#include <gtest/gtest.h>

#include "core/kallsyms_subset.h"
#include "importer/import.h"

namespace kprof::importer {
namespace {

constexpr std::string_view kText = "ffffffff81000000 T _text\nffffffff81001000 T kernel_hot_path\n";
constexpr const char* kBoot = "0df95e5d-f72b-4a22-ac85-36df3c24cab3";
constexpr const char* kCacheFile = "/home/u/.cache/kprof/kallsyms-x.kprof";

// A profile as a recording that left its snapshot in the cache and was
// killed before the end: no kallsyms.
Profile cut_short(std::string boot = kBoot) {
  Profile p;
  p.run.boot_id = std::move(boot);
  p.run.kallsyms_digest = kallsyms_digest(kText);
  return p;
}

struct Running {
  int calls = 0;
  RunningKernel kernel(std::string text, std::string boot = kBoot) {
    RunningKernel k;
    k.boot_id = std::move(boot);
    k.boot_kallsyms = [this, text] {
      ++calls;
      return RunningKernel::BootKallsyms{text, kCacheFile};
    };
    return k;
  }
};

TEST(BootKallsyms, SameBootAndSnapshotNamesFromTheCache) {
  Running r;
  const Profile p = with_boot_kallsyms(cut_short(), r.kernel(std::string(kText)));
  EXPECT_EQ(p.kallsyms, kText);
  ASSERT_EQ(p.run.notices.size(), 1u);
  EXPECT_TRUE(p.run.notices[0].starts_with(kBootCacheKallsymsNotice)) << p.run.notices[0];
  EXPECT_NE(p.run.notices[0].find(kCacheFile), std::string::npos) << p.run.notices[0];
  EXPECT_NE(p.run.notices[0].find("cut short before its kernel symbols were written"),
            std::string::npos)
      << p.run.notices[0];
}

TEST(BootKallsyms, AnotherBootLeavesThemUnnamedAndSaysWhy) {
  Running r;
  const Profile p = with_boot_kallsyms(cut_short(), r.kernel(std::string(kText), "another-id"));
  EXPECT_TRUE(p.kallsyms.empty());
  EXPECT_EQ(r.calls, 0) << "the cache of another boot is never read";
  ASSERT_EQ(p.run.notices.size(), 1u);
  EXPECT_EQ(p.run.notices[0],
            std::string("kernel functions stay unnamed: the profile was cut short before its "
                        "kernel symbols were written, and it was recorded on another boot "
                        "(boot id ") +
                kBoot + ")");
}

TEST(BootKallsyms, ANewerOrMissingSnapshotIsNotUsed) {
  Running r;
  Profile p =
      with_boot_kallsyms(cut_short(), r.kernel(std::string(kText) + "ffffffff81002000 T x\n"));
  EXPECT_TRUE(p.kallsyms.empty());
  ASSERT_EQ(p.run.notices.size(), 1u);
  EXPECT_NE(p.run.notices[0].find("holds a newer snapshot"), std::string::npos) << p.run.notices[0];

  p = with_boot_kallsyms(cut_short(), r.kernel(""));
  EXPECT_TRUE(p.kallsyms.empty());
  ASSERT_EQ(p.run.notices.size(), 1u);
  EXPECT_NE(p.run.notices[0].find("no longer holds its snapshot"), std::string::npos)
      << p.run.notices[0];

  RunningKernel none;  // no boot id known here, no cache reader
  p = with_boot_kallsyms(cut_short(), none);
  ASSERT_EQ(p.run.notices.size(), 1u);
  EXPECT_NE(p.run.notices[0].find("another boot"), std::string::npos) << p.run.notices[0];
}

TEST(BootKallsyms, OtherProfilesAreLeftAsTheyAre) {
  Running r;
  const RunningKernel k = r.kernel(std::string(kText));
  Profile complete = cut_short();
  complete.kallsyms = "ffffffff81001000 T kernel_hot_path\n";  // its subset
  EXPECT_EQ(with_boot_kallsyms(complete, k).kallsyms, complete.kallsyms);
  EXPECT_TRUE(with_boot_kallsyms(complete, k).run.notices.empty());

  Profile whole;  // the snapshot was in the file (no digest), or an older kprof
  whole.run.boot_id = kBoot;
  EXPECT_TRUE(with_boot_kallsyms(whole, k).run.notices.empty());
  EXPECT_TRUE(with_boot_kallsyms(whole, k).kallsyms.empty());

  Profile imported = cut_short();
  imported.run.source_format = "perf.data";
  EXPECT_TRUE(with_boot_kallsyms(imported, k).run.notices.empty());

  Profile user_only = cut_short("another-boot");  // nothing to name in the kernel
  user_only.run.event.exclude_kernel = true;
  EXPECT_TRUE(with_boot_kallsyms(user_only, k).run.notices.empty());
  EXPECT_EQ(r.calls, 0);
}

}  // namespace
}  // namespace kprof::importer
