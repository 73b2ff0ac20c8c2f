// Paths that are not the small regular files a profile or plan file should be: devices that
// never end (/dev/zero, /dev/urandom), a FIFO without a writer, a directory, a huge sparse file
// that is not a plan file, and a profile with bytes after its JSON object. Each must be rejected
// quickly, in bounded memory, with a reason, and never hang.
//
// Each load runs in a forked child that the test kills after a deadline, so a loader that
// blocks or reads without bound fails the test instead of hanging it or exhausting memory; the
// child's peak resident memory comes back through wait4.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "adaptcore/adaptcore.hpp"
#include "adaptcore/hardware.hpp"
#include "core/file_read.hpp"
#include "dispatch/plan_file.hpp"

namespace adaptcore {
namespace {

// Nothing may escape these as an exception.
static_assert(noexcept(load_profile_file(std::string(), HardwareProfile{},
                                         std::declval<HardwareProfile&>())));
static_assert(noexcept(profile_from_json(std::string(), HardwareProfile{},
                                         std::declval<HardwareProfile&>())));
static_assert(noexcept(read_regular_file(std::string(), 0, std::declval<std::string&>())));

constexpr double kDeadlineS = 5.0;
// More than a loader needs for a rejected file; far less than reading a device or a 1 GiB file.
constexpr long kMaxExtraRssKib = 64 * 1024;

struct Outcome {
  bool finished = false;  // false: killed at the deadline
  Status status = Status::Ok;
  std::string reason;
  long peak_rss_kib = 0;
  double seconds = 0.0;
};

long own_peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// Runs `load` in a child process: returns its status and reason, or finished == false when it
// did not return within the deadline (the child is then killed).
Outcome run_isolated(const std::function<Status(std::string&)>& load) {
  detected_hardware();  // detect once here, not in every child
  int fds[2];
  if (::pipe(fds) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return {};
  }
  std::fflush(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return {};
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string reason;
    const Status s = load(reason);
    const int code = static_cast<int>(s);
    reason.resize(std::min<std::size_t>(reason.size(), 4000));  // within the pipe's buffer
    if (::write(fds[1], &code, sizeof code) < 0 ||
        ::write(fds[1], reason.data(), reason.size()) < 0)
      ::_exit(2);
    ::_exit(0);
  }
  ::close(fds[1]);
  Outcome o;
  int wstatus = 0;
  rusage usage{};
  for (;;) {
    const pid_t r = ::wait4(pid, &wstatus, WNOHANG, &usage);
    if (r == pid) {
      o.finished = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
      break;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > kDeadlineS) {
      ::kill(pid, SIGKILL);  // our own child, stuck or reading without end
      ::wait4(pid, &wstatus, 0, &usage);
      break;
    }
    ::usleep(2000);
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.peak_rss_kib = usage.ru_maxrss;
  if (o.finished) {
    int code = -1;
    if (::read(fds[0], &code, sizeof code) == static_cast<ssize_t>(sizeof code)) {
      o.status = static_cast<Status>(code);
      char buf[4096];
      ssize_t n = 0;
      while ((n = ::read(fds[0], buf, sizeof buf)) > 0)
        o.reason.append(buf, static_cast<std::size_t>(n));
    } else {
      o.finished = false;
    }
  }
  ::close(fds[0]);
  return o;
}

// The outcome must be a quick rejection with `status` whose reason contains `why`.
void expect_rejected(const Outcome& o, Status status, const std::string& why,
                     const std::string& what) {
  ASSERT_TRUE(o.finished) << what << ": did not return within " << kDeadlineS << " s";
  EXPECT_EQ(o.status, status) << what << ": " << o.reason;
  EXPECT_NE(o.reason.find(why), std::string::npos) << what << ": reason '" << o.reason << "'";
  EXPECT_LT(o.peak_rss_kib, own_peak_rss_kib() + kMaxExtraRssKib)
      << what << ": peak resident memory " << o.peak_rss_kib / 1024 << " MiB";
}

Outcome load_profile_isolated(const std::string& path) {
  return run_isolated([&](std::string& why) {
    HardwareProfile out;
    return load_profile_file(path, detected_hardware(), out, &why);
  });
}

Outcome context_profile_isolated(const std::string& path) {
  return run_isolated([&](std::string& why) {
    ContextOptions o;
    o.threads = 1;
    o.read_environment = false;
    Context ctx(o);
    return ctx.load_hardware_profile(path, &why);
  });
}

Outcome load_plan_isolated(const std::string& path) {
  return run_isolated([&](std::string& why) {
    ContextOptions o;
    o.threads = 1;
    o.read_environment = false;
    Context ctx(o);
    std::fclose(stderr);  // the loader's warning is expected; keep the log readable
    return ctx.load_plan_file(path, &why);
  });
}

// A fresh directory for this test's files.
class HostileFiles : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = testing::TempDir() + "adaptcore_hostile_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override {
    for (const std::string& f : files_) std::remove(f.c_str());
    ::rmdir(dir_.c_str());
  }
  std::string file(const std::string& name) {
    files_.push_back(dir_ + "/" + name);
    return files_.back();
  }
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = file(name);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  // A sparse file of `size` bytes starting with `head` (no disk blocks for the rest).
  std::string sparse(const std::string& name, const std::string& head, off_t size) {
    const std::string path = write(name, head);
    EXPECT_EQ(::truncate(path.c_str(), size), 0) << std::strerror(errno);
    return path;
  }
  std::string dir_;
  std::vector<std::string> files_;
};

bool readable(const char* path) { return ::access(path, R_OK) == 0; }

TEST_F(HostileFiles, EndlessDevicesAsProfile) {
  for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
    if (!readable(dev)) continue;
    expect_rejected(load_profile_isolated(dev), Status::InvalidProfile, "not a regular file", dev);
    expect_rejected(context_profile_isolated(dev), Status::InvalidProfile, "not a regular file",
                    std::string("context, ") + dev);
  }
}

TEST_F(HostileFiles, EndlessDevicesAsPlanFile) {
  for (const char* dev : {"/dev/zero", "/dev/urandom"}) {
    if (!readable(dev)) continue;
    expect_rejected(load_plan_isolated(dev), Status::InvalidPlanFile, "not a regular file", dev);
  }
}

// Opening a FIFO for reading waits for a writer unless O_NONBLOCK; none comes.
TEST_F(HostileFiles, FifoDoesNotBlock) {
  const std::string fifo = file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  expect_rejected(load_profile_isolated(fifo), Status::InvalidProfile, "not a regular file",
                  "FIFO profile");
  expect_rejected(load_plan_isolated(fifo), Status::InvalidPlanFile, "not a regular file",
                  "FIFO plan file");
}

TEST_F(HostileFiles, DirectoryIsRejectedAsSuch) {
  expect_rejected(load_profile_isolated(dir_), Status::InvalidProfile, "is a directory",
                  "directory profile");
  expect_rejected(load_plan_isolated(dir_), Status::InvalidPlanFile, "is a directory",
                  "directory plan file");
}

// A plan file's magic is checked before its size and before the rest is read: a 1 GiB file
// of garbage (within the size cap) and a larger one are both "bad magic", read in a few bytes.
TEST_F(HostileFiles, HugeGarbagePlanFileRejectedByItsMagic) {
  const off_t gib = off_t{1} << 30;
  const std::string at_cap = sparse("garbage_1g.plan", "GARBAGE!", gib);
  expect_rejected(load_plan_isolated(at_cap), Status::InvalidPlanFile, "bad magic",
                  "1 GiB garbage");
  const std::string over = sparse("garbage_big.plan", "GARBAGE!", gib + 4096);
  expect_rejected(load_plan_isolated(over), Status::InvalidPlanFile, "bad magic",
                  "1 GiB + 4 KiB garbage");
  // With the right magic, the size cap applies before anything else is read.
  const std::string big = sparse("big.plan", std::string("ACPLAN\0\0", 8), gib + 4096);
  expect_rejected(load_plan_isolated(big), Status::InvalidPlanFile, "too large",
                  "1 GiB + 4 KiB plan");
}

TEST_F(HostileFiles, OversizedProfileRejectedBeforeReading) {
  const std::string big = sparse("big.json", "{", off_t{1} << 30);
  expect_rejected(load_profile_isolated(big), Status::InvalidProfile, "too large", "1 GiB profile");
}

// The JSON parser takes a NUL for the end of input, which hid whatever followed the object.
TEST_F(HostileFiles, ProfileWithBytesAfterTheObject) {
  const std::string object = R"({"cores": 2})";
  HardwareProfile out;
  std::string why;
  ASSERT_EQ(profile_from_json(object, detected_hardware(), out, &why), Status::Ok) << why;
  EXPECT_EQ(out.cores, 2);

  const std::string nul_garbage = object + std::string("\0garbage", 8);
  EXPECT_EQ(profile_from_json(nul_garbage, detected_hardware(), out, &why), Status::InvalidProfile);
  EXPECT_EQ(profile_from_json(object + std::string(1, '\0'), detected_hardware(), out, &why),
            Status::InvalidProfile);
  EXPECT_EQ(profile_from_json(object + " garbage", detected_hardware(), out, &why),
            Status::InvalidProfile);
  EXPECT_EQ(profile_from_json(object + "{}", detected_hardware(), out, &why),
            Status::InvalidProfile);
  // Whitespace after the object is still fine.
  EXPECT_EQ(profile_from_json(object + "\n\t ", detected_hardware(), out, &why), Status::Ok) << why;

  const std::string path = write("nul.json", nul_garbage);
  expect_rejected(load_profile_isolated(path), Status::InvalidProfile, "NUL", "NUL + garbage file");
  ContextOptions o;
  o.threads = 1;
  o.read_environment = false;
  o.profile_path = path;
  Context ctx(o);
  EXPECT_EQ(ctx.init_status(), Status::InvalidProfile);
  EXPECT_EQ(ctx.hardware().source, default_hardware().source);
}

// The reader itself: regular files of any size up to the cap, exactly; one byte over fails.
TEST_F(HostileFiles, ReaderReadsRegularFilesWithinTheCap) {
  std::string bytes(100000, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 31 + 7);
  const std::string path = write("data.bin", bytes);
  std::string out, why;
  ASSERT_EQ(read_regular_file(path, bytes.size(), out, &why), Status::Ok) << why;
  EXPECT_EQ(out, bytes);
  EXPECT_EQ(read_regular_file(path, bytes.size() - 1, out, &why), Status::InvalidArgument);
  EXPECT_TRUE(out.empty());
  EXPECT_NE(why.find("too large"), std::string::npos) << why;
  // A matching magic reads on; a different one stops after it.
  ASSERT_EQ(read_regular_file(path, bytes.size(), out, &why, bytes.substr(0, 8)), Status::Ok);
  EXPECT_EQ(out, bytes);
  ASSERT_EQ(read_regular_file(path, 10, out, &why, "XXXXXXXX"), Status::Ok);
  EXPECT_EQ(out, bytes.substr(0, 8));
  // Empty files and missing ones.
  const std::string empty = write("empty.bin", "");
  ASSERT_EQ(read_regular_file(empty, 10, out, &why), Status::Ok);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(read_regular_file(dir_ + "/missing", 10, out, &why), Status::InvalidArgument);
  EXPECT_NE(why.find("cannot open"), std::string::npos) << why;
}

}  // namespace
}  // namespace adaptcore
