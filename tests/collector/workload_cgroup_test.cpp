// collector/workload_cgroup.h: where the cgroup2 hierarchy and kprof's own
// cgroup are, from /proc's text; and, where this machine lets kprof make one,
// a cgroup that takes a process and is gone, its process moved back, once
// dropped.
#include "collector/workload_cgroup.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "collector/procfs.h"

namespace kprof::collector {
namespace {

TEST(WorkloadCgroup, FindsTheCgroup2Mount) {
  EXPECT_EQ(cgroup2_mount("tmpfs /sys/fs/cgroup tmpfs rw 0 0\n"
                          "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
                          "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0\n"),
            "/sys/fs/cgroup/unified");
  EXPECT_EQ(cgroup2_mount("cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0\n"), "/sys/fs/cgroup");
  EXPECT_EQ(cgroup2_mount("cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"), "");
  EXPECT_EQ(cgroup2_mount(""), "");
  // A mount point with an escaped space is not guessed at.
  EXPECT_EQ(cgroup2_mount("cgroup2 /a\\040b cgroup2 rw 0 0\n"), "");
}

TEST(WorkloadCgroup, FindsItsOwnCgroup2) {
  EXPECT_EQ(own_cgroup2("4:memory:/x\n0::/\n"), "");
  EXPECT_EQ(own_cgroup2("0::/user.slice/session-1.scope\n"), "/user.slice/session-1.scope");
  EXPECT_EQ(own_cgroup2("1:name=systemd:/\n"), "");
  EXPECT_EQ(own_cgroup2(""), "");
}

TEST(WorkloadCgroup, ReadsTheProcessIdsOfCgroupProcs) {
  EXPECT_EQ(parse_cgroup_procs("12\n345\n"), (std::vector<pid_t>{12, 345}));
  EXPECT_EQ(parse_cgroup_procs(""), std::vector<pid_t>{});
  // Not a pid: skipped, never read past or thrown on.
  EXPECT_EQ(parse_cgroup_procs("0\n-3\nx\n7x\n\n99999999999999999999\n8"), std::vector<pid_t>{8});
}

TEST(WorkloadCgroup, TakesAProcessAndLeavesNothingBehind) {
  std::string why;
  std::optional<WorkloadCgroup> cg = WorkloadCgroup::create(&why);
  if (!cg) GTEST_SKIP() << "no cgroup here: " << why;
  const std::string path = cg->path();
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0) << path;
  EXPECT_GE(cg->fd(), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  EXPECT_EQ(cg->add(child), "");
  EXPECT_NE(read_text_file(path + "/cgroup.procs").find(std::to_string(child)), std::string::npos);
  EXPECT_EQ(cg->pids(), std::vector<pid_t>{child});
  EXPECT_NE(cg->add(-5), "");  // no such process: said, not thrown
  cg.reset();                  // the child still runs: moved out, then the cgroup removed
  EXPECT_NE(::stat(path.c_str(), &st), 0) << path << " left behind";
  EXPECT_EQ(::kill(child, 0), 0) << "a task left running must not be killed";
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
}

TEST(WorkloadCgroup, RemovesWhatAKilledKprofLeft) {
  std::string why;
  std::optional<WorkloadCgroup> cg = WorkloadCgroup::create(&why);
  if (!cg) GTEST_SKIP() << "no cgroup here: " << why;
  const std::string parent = cg->path().substr(0, cg->path().rfind('/'));
  cg.reset();
  // No process has this pid: its kprof is gone.
  const std::string stale = parent + "/kprof-" + std::to_string(std::numeric_limits<int>::max());
  ASSERT_EQ(::mkdir(stale.c_str(), 0755), 0) << stale;
  const std::optional<WorkloadCgroup> next = WorkloadCgroup::create(&why);
  EXPECT_TRUE(next.has_value()) << why;
  struct stat st {};
  EXPECT_NE(::stat(stale.c_str(), &st), 0) << stale << " left behind";
  ::rmdir(stale.c_str());
}

}  // namespace
}  // namespace kprof::collector
