#include "bench/harness/device_facts.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <ctime>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

namespace epifuse::bench {
namespace {

// NVML through dlopen: the bench runs (without clocks) where libnvidia-ml is absent.
struct Nvml {
  using Device = void*;
  int (*init)() = nullptr;
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*device_by_index)(unsigned, Device*) = nullptr;
  int (*clock)(Device, int, unsigned*) = nullptr;
  int (*max_clock)(Device, int, unsigned*) = nullptr;
  Device device = nullptr;
  bool ok = false;

  static constexpr int kClockSm = 1;   // NVML_CLOCK_SM
  static constexpr int kClockMem = 2;  // NVML_CLOCK_MEM

  Nvml() {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    driver_version = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
    device_by_index = reinterpret_cast<int (*)(unsigned, Device*)>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    clock = reinterpret_cast<int (*)(Device, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    max_clock = reinterpret_cast<int (*)(Device, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
    ok = init && driver_version && device_by_index && clock && max_clock && init() == 0 &&
         device_by_index(0, &device) == 0;
  }

  int read(int (*fn)(Device, int, unsigned*), int which) const {
    unsigned mhz = 0;
    return ok && fn(device, which, &mhz) == 0 ? static_cast<int>(mhz) : 0;
  }
};

const Nvml& nvml() {
  static const Nvml instance;
  return instance;
}

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

}  // namespace

DeviceFacts query_device(bool* ok, std::string* why) {
  DeviceFacts f;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    *ok = false;
    *why = "no CUDA GPU on this machine";
    return f;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  f.gpu = prop.name;
  f.sm_count = prop.multiProcessorCount;
  f.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  f.memory_bytes = prop.totalGlobalMem;
  f.cc_major = prop.major;
  f.cc_minor = prop.minor;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  f.cuda = "runtime " + version_string(runtime) + ", cuBLASLt " + std::to_string(cublasLtGetVersion());
  char buf[96] = {};
  f.driver = nvml().ok && nvml().driver_version(buf, sizeof(buf)) == 0 ? std::string(buf)
                                                                          : "CUDA driver API " + version_string(driver);
  f.sm_clock_mhz = nvml().read(nvml().clock, Nvml::kClockSm);
  f.sm_clock_max_mhz = nvml().read(nvml().max_clock, Nvml::kClockSm);
  f.mem_clock_mhz = nvml().read(nvml().clock, Nvml::kClockMem);
  *ok = prop.major == 9 && prop.minor == 0;
  if (!*ok) *why = f.gpu + " is not a Hopper (sm_90) GPU";
  return f;
}

int current_sm_clock_mhz() { return nvml().read(nvml().clock, Nvml::kClockSm); }

std::string git_commit() {
  if (const char* env = std::getenv("EPIFUSE_COMMIT"); env && *env) return env;
  return EPIFUSE_BUILD_COMMIT;
}

std::string utc_now_iso() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

}  // namespace epifuse::bench
