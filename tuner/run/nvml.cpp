#include "run/nvml.h"

#include <utility>

#include "run/library.h"

namespace tune::run {

namespace {

std::string& last_why() {
  static std::string why;
  return why;
}

// NVML's C types, as its header declares them (nvml.h is not part of the toolkit here).
using Return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using Device = void*;
constexpr int kClockSm = 1;                   // NVML_CLOCK_SM
constexpr unsigned kFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT, in mW

// nvmlFieldValue_t
struct FieldValue {
  unsigned field_id = 0, scope_id = 0;
  long long timestamp = 0, latency_us = 0;
  int value_type = 0;  // nvmlValueType_t
  Return result = 0;
  union {
    double d;
    unsigned u;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
  } value{};
};
constexpr int kValueUnsignedInt = 1, kValueUnsignedLong = 2, kValueUnsignedLongLong = 3, kValueSignedLongLong = 4,
              kValueDouble = 0;

}  // namespace

struct Nvml::Api {
  Library lib;  // closed after the destructor's shutdown
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  Return (*by_pci)(const char*, Device*) = nullptr;
  Return (*clock)(Device, int, unsigned*) = nullptr;
  Return (*reasons)(Device, unsigned long long*) = nullptr;
  Return (*energy)(Device, unsigned long long*) = nullptr;  // optional
  Return (*fields)(Device, int, FieldValue*) = nullptr;     // optional
  bool initialised = false;
  ~Api() {
    if (initialised && shutdown != nullptr) shutdown();
  }
};

bool throttling(std::uint64_t reasons) { return (reasons & reason::kThrottling) != 0; }

std::string describe_reasons(std::uint64_t reasons) {
  static constexpr std::pair<std::uint64_t, const char*> kNames[] = {
      {reason::kGpuIdle, "idle"},
      {reason::kApplicationsClocks, "application clocks"},
      {reason::kSwPowerCap, "power cap"},
      {reason::kHwSlowdown, "HW slowdown"},
      {reason::kSyncBoost, "sync boost"},
      {reason::kSwThermal, "SW thermal slowdown"},
      {reason::kHwThermal, "HW thermal slowdown"},
      {reason::kHwPowerBrake, "HW power brake"},
      {reason::kDisplayClocks, "display clocks"}};
  std::string out;
  for (const auto& [bit, name] : kNames)
    if (reasons & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  const std::uint64_t known = 0x1FF;
  if (reasons & ~known) out += (out.empty() ? "" : ", ") + std::string("other");
  return out.empty() ? "none" : out;
}

std::string Nvml::why() { return last_why(); }

std::unique_ptr<Nvml> Nvml::open(const std::string& pci_bus_id) {
  auto api = std::make_unique<Api>();
  api->lib = Library::open("libnvidia-ml.so.1");
  if (!api->lib) {
    last_why() = "libnvidia-ml.so.1 not found";
    return nullptr;
  }
  const Library& lib = api->lib;
  api->init = lib.function<decltype(api->init)>("nvmlInit_v2");
  api->shutdown = lib.function<decltype(api->shutdown)>("nvmlShutdown");
  api->by_pci = lib.function<decltype(api->by_pci)>("nvmlDeviceGetHandleByPciBusId_v2");
  api->clock = lib.function<decltype(api->clock)>("nvmlDeviceGetClockInfo");
  api->reasons = lib.function<decltype(api->reasons)>("nvmlDeviceGetCurrentClocksEventReasons");
  if (api->reasons == nullptr)  // drivers before 535
    api->reasons = lib.function<decltype(api->reasons)>("nvmlDeviceGetCurrentClocksThrottleReasons");
  api->energy = lib.function<decltype(api->energy)>("nvmlDeviceGetTotalEnergyConsumption");
  api->fields = lib.function<decltype(api->fields)>("nvmlDeviceGetFieldValues");
  if (!api->init || !api->shutdown || !api->by_pci || !api->clock || !api->reasons) {
    last_why() = "libnvidia-ml.so.1 lacks a function the timing needs";
    return nullptr;
  }
  if (Return rc = api->init(); rc != 0) {
    last_why() = "nvmlInit failed (NVML error " + std::to_string(rc) + ")";
    return nullptr;
  }
  api->initialised = true;
  Device device = nullptr;
  if (Return rc = api->by_pci(pci_bus_id.c_str(), &device); rc != 0) {
    last_why() = "NVML does not know the device at PCI " + pci_bus_id + " (NVML error " + std::to_string(rc) + ")";
    return nullptr;
  }
  last_why().clear();
  return std::make_unique<Nvml>(Key{}, std::move(api), device);
}

Nvml::Nvml(Key, std::unique_ptr<Api> api, void* device) : api_(std::move(api)), device_(device) {}

Nvml::~Nvml() = default;

std::optional<ClockReading> Nvml::read() const {
  ClockReading out;
  unsigned long long reasons = 0;
  if (api_->clock(device_, kClockSm, &out.sm_mhz) != 0) return std::nullopt;
  if (api_->reasons(device_, &reasons) != 0) return std::nullopt;
  out.reasons = reasons;
  return out;
}

std::optional<std::uint64_t> Nvml::energy_mj() const {
  unsigned long long mj = 0;
  if (api_->energy == nullptr || api_->energy(device_, &mj) != 0) return std::nullopt;
  return mj;
}

std::optional<double> Nvml::power_instant_w() const {
  if (api_->fields == nullptr) return std::nullopt;
  FieldValue f;
  f.field_id = kFieldPowerInstant;
  if (api_->fields(device_, 1, &f) != 0 || f.result != 0) return std::nullopt;
  double mw = 0;
  switch (f.value_type) {
    case kValueDouble:
      mw = f.value.d;
      break;
    case kValueUnsignedInt:
      mw = f.value.u;
      break;
    case kValueUnsignedLong:
      mw = static_cast<double>(f.value.ul);
      break;
    case kValueUnsignedLongLong:
      mw = static_cast<double>(f.value.ull);
      break;
    case kValueSignedLongLong:
      mw = static_cast<double>(f.value.sll);
      break;
    default:
      return std::nullopt;
  }
  return mw / 1000.0;
}

}  // namespace tune::run
