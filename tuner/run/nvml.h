// NVML, loaded at run time with dlopen("libnvidia-ml.so.1") so that the binary has no link-time
// dependency on the driver: on a machine without one every CPU command still runs, and timing just
// says "clocks not monitored". Only what the timing method needs: the SM clock and the clocks-event
// (throttle) reasons of the device a Session uses, found by its PCI bus id; and what the energy
// measurement needs (run/energy.h): the board's total-energy counter and its instantaneous power.
// Read-only: nothing here sets clocks or power limits.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tune::run {

// Clocks-event reasons (NVML's nvmlClocksEventReason* bits).
namespace reason {
inline constexpr std::uint64_t kGpuIdle = 0x1, kApplicationsClocks = 0x2, kSwPowerCap = 0x4, kHwSlowdown = 0x8,
                               kSyncBoost = 0x10, kSwThermal = 0x20, kHwThermal = 0x40, kHwPowerBrake = 0x80,
                               kDisplayClocks = 0x100;
// The reasons that slow a running kernel down: power cap, thermal and hardware slowdowns. Idle,
// application-clock, sync-boost and display settings are not throttling of a measurement.
inline constexpr std::uint64_t kThrottling = kSwPowerCap | kHwSlowdown | kSwThermal | kHwThermal | kHwPowerBrake;
}  // namespace reason

// Whether `reasons` hold a throttling reason (reason::kThrottling).
bool throttling(std::uint64_t reasons);
// "power cap, HW thermal slowdown" for a reasons mask ("none" for 0).
std::string describe_reasons(std::uint64_t reasons);

struct ClockReading {
  unsigned sm_mhz = 0;
  std::uint64_t reasons = 0;
};

// One device's NVML handle. Not thread-safe; one per Session.
class Nvml {
 public:
  // The device with this PCI bus id ("0000:17:00.0", cudaDeviceGetPCIBusId); nullptr when NVML
  // cannot be loaded or initialised or does not know the device (why() says which).
  static std::unique_ptr<Nvml> open(const std::string& pci_bus_id);
  // Why open() returned nullptr last (empty when it succeeded).
  static std::string why();
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // The SM clock and the current reasons; nullopt when NVML refuses the query.
  std::optional<ClockReading> read() const;
  // The board's energy since the driver loaded, in mJ (nvmlDeviceGetTotalEnergyConsumption;
  // Volta and later); nullopt when NVML refuses or the driver lacks it.
  std::optional<std::uint64_t> energy_mj() const;
  // The board's instantaneous power in W (field NVML_FI_DEV_POWER_INSTANT); nullopt when refused.
  std::optional<double> power_instant_w() const;

 private:
  struct Api;
  struct Key {};  // only open() constructs

 public:
  Nvml(Key, std::unique_ptr<Api> api, void* device);

 private:
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;
};

}  // namespace tune::run
