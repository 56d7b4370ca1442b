#pragma once
// Running the stencilscope executable from a test, as a person would: the exit
// status, what it printed, and the one-line-error check every CLI test uses.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace ss::test {

struct CliResult {
  int status = -1;
  std::string out;  // what the command printed (stdout, and stderr where merged)
};

/// Runs `stencilscope <args>`; `merge_stderr` false keeps stderr out of `out`.
inline CliResult run_cli(const std::string& args, bool merge_stderr = true) {
  const std::string cmd = std::string(STENCILSCOPE_EXE) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int w = pclose(p);
  r.status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
  return r;
}

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// Bad input: a non-zero exit and one line that mentions `fragment`.
inline void expect_cli_error(const std::string& args, const std::string& fragment) {
  const CliResult r = run_cli(args);
  EXPECT_NE(r.status, 0) << args << "\n" << r.out;
  EXPECT_NE(r.out.find(fragment), std::string::npos) << args << " should mention '" << fragment << "':\n" << r.out;
  EXPECT_EQ(count_lines(r.out), 1) << args << " should print one line:\n" << r.out;
}

}  // namespace ss::test
