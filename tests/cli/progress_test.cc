// The progress line a long scan shows at a terminal: its text, that it is written
// and erased from its own thread, and that the CLI shows it only where a person
// waits (stderr a terminal, a large input or a pipe, a scan that takes a while).
#include "cli/progress.h"

#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <sstream>
#include <string>
#include <thread>

#include "tests/cli/cli_harness.h"

namespace oomlens {
namespace {

TEST(ProgressText, SaysHowMuchOfWhatAndHowFast) {
  EXPECT_EQ(ProgressText(512ull << 20, 1ull << 30, 2.0), "512.00M of 1.00G read (50%), 256.00M/s");
  EXPECT_EQ(ProgressText(3ull << 30, 0, 1.0), "3.00G read, 3.00G/s");                // a pipe: no total
  EXPECT_EQ(ProgressText(2ull << 30, 1ull << 30, 0), "2.00G of 1.00G read (100%)");  // grew while read
}

// A string buffer that says when something was written to it (from any thread).
class WatchedBuffer : public std::stringbuf {
 public:
  std::atomic<bool> written{false};

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::streamsize put = std::stringbuf::xsputn(s, n);
    written = true;
    return put;
  }
};

TEST(ProgressLine, IsRewrittenInPlaceThenErased) {
  WatchedBuffer buffer;
  std::ostream err(&buffer);
  std::atomic<uint64_t> read{256ull << 20};
  {
    ProgressLine line(err, &read, 1ull << 30, std::chrono::milliseconds(0), std::chrono::milliseconds(5));
    for (int k = 0; k < 10000 && !buffer.written; ++k)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::string text = buffer.str();
  EXPECT_EQ(text.rfind("\r\x1b[Koomlens: 256.00M of 1.00G read (25%)", 0), 0u) << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K") << "the line is erased at the end";
}

TEST(ProgressLine, AScanThatEndsSoonerShowsNothing) {
  std::ostringstream err;
  std::atomic<uint64_t> read{0};
  { ProgressLine line(err, &read, 1ull << 30); }  // gone before its first second
  EXPECT_EQ(err.str(), "");
}

// A pipe that keeps the scan waiting past the first second: the line shows on a
// terminal's stderr and is gone before the report; elsewhere stderr stays empty.
CliResult ScanSlowPipe(bool stderr_is_terminal) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::thread writer([fd = fds[1]] {
    std::string start = "step 1\nstep 2\n";
    std::string oom =
        "RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve 29.49G at the bottom of "
        "memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable.\n";
    EXPECT_EQ(::write(fd, start.data(), start.size()), static_cast<ssize_t>(start.size()));
    // the second counts from when the scan reads: wait until it has taken the first lines
    // (a slow start, as under sanitizers on a loaded machine, is not the pipe's silence)
    int unread = 1;
    while (::ioctl(fd, FIONREAD, &unread) == 0 && unread > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1600));
    EXPECT_EQ(::write(fd, oom.data(), oom.size()), static_cast<ssize_t>(oom.size()));
    ::close(fd);
  });
  Console console;
  console.stdin_fd = fds[0];
  console.stderr_is_terminal = stderr_is_terminal;
  CliResult r = RunOomlens({"--color", "never", "-"}, console);
  writer.join();
  ::close(fds[0]);
  return r;
}

TEST(ProgressLine, TheCliShowsItOnlyAtATerminal) {
  CliResult shown = ScanSlowPipe(true);
  EXPECT_EQ(shown.code, kExitOomFound);
  EXPECT_EQ(shown.err.rfind("\r\x1b[Koomlens: ", 0), 0u) << shown.err;
  EXPECT_NE(shown.err.find(" read, "), std::string::npos) << "a pipe has no total: " << shown.err;
  ASSERT_GE(shown.err.size(), 4u);
  EXPECT_EQ(shown.err.substr(shown.err.size() - 4), "\r\x1b[K");
  EXPECT_EQ(shown.out.rfind("oomlens: 1 OOM incident in <stdin>", 0), 0u) << shown.out;
  CliResult piped = ScanSlowPipe(false);
  EXPECT_EQ(piped.err, "");
  EXPECT_EQ(piped.out, shown.out);
}

}  // namespace
}  // namespace oomlens
