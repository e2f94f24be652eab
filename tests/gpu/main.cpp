// The GPU suite's main: runs the tests, then appends "ran passed failed skipped [why skipped]" to
// the file $EPIFUSE_GPU_SUMMARY names (if set), so scripts/test.sh can end with one line that
// counts them.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "testing/device_buffer.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const int skipped = unit.skipped_test_count();
  const int ran = unit.test_to_run_count() - skipped;
  std::string why;
  if (skipped > 0 && !epifuse::testing::hopper_available(&why)) why = " " + why;
  if (const char* path = std::getenv("EPIFUSE_GPU_SUMMARY")) {
    if (std::FILE* f = std::fopen(path, "a")) {
      std::fprintf(f, "%d %d %d %d%s\n", ran, unit.successful_test_count(), unit.failed_test_count(), skipped,
                   why.c_str());
      std::fclose(f);
    }
  }
  return result;
}
