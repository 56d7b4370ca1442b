// Vulkan, loaded at run time, as the maker of exportable semaphores. The few Vulkan 1.1
// declarations needed are written out here (values from vulkan_core.h 1.3.239) so the
// build needs no Vulkan headers either; they are part of Vulkan's stable ABI.
#include "exportable_semaphores.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sim/core/error.hpp"

namespace ss::render {

namespace vk {

using Result = std::int32_t;  // VkResult: VK_SUCCESS is 0, errors are negative
using Instance = struct Instance_T*;
using PhysicalDevice = struct PhysicalDevice_T*;
using Device = struct Device_T*;
using Semaphore = struct Semaphore_T*;  // non-dispatchable, 64-bit: a pointer-sized handle
using VoidFunction = void (*)();

enum : std::int32_t {
  kApplicationInfo = 0,
  kInstanceCreateInfo = 1,
  kDeviceQueueCreateInfo = 2,
  kDeviceCreateInfo = 3,
  kSemaphoreCreateInfo = 9,
  kPhysicalDeviceProperties2 = 1000059001,
  kPhysicalDeviceIdProperties = 1000071004,
  kExportSemaphoreCreateInfo = 1000077000,
  kSemaphoreGetFdInfo = 1000079001,
};
constexpr std::uint32_t kOpaqueFdBit = 0x1;                   // VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
constexpr std::uint32_t kApiVersion11 = (1u << 22) | (1u << 12);  // VK_API_VERSION_1_1

struct ApplicationInfo {
  std::int32_t sType;
  const void* pNext;
  const char* pApplicationName;
  std::uint32_t applicationVersion;
  const char* pEngineName;
  std::uint32_t engineVersion;
  std::uint32_t apiVersion;
};
struct InstanceCreateInfo {
  std::int32_t sType;
  const void* pNext;
  std::uint32_t flags;
  const ApplicationInfo* pApplicationInfo;
  std::uint32_t enabledLayerCount;
  const char* const* ppEnabledLayerNames;
  std::uint32_t enabledExtensionCount;
  const char* const* ppEnabledExtensionNames;
};
struct DeviceQueueCreateInfo {
  std::int32_t sType;
  const void* pNext;
  std::uint32_t flags;
  std::uint32_t queueFamilyIndex;
  std::uint32_t queueCount;
  const float* pQueuePriorities;
};
struct DeviceCreateInfo {
  std::int32_t sType;
  const void* pNext;
  std::uint32_t flags;
  std::uint32_t queueCreateInfoCount;
  const DeviceQueueCreateInfo* pQueueCreateInfos;
  std::uint32_t enabledLayerCount;
  const char* const* ppEnabledLayerNames;
  std::uint32_t enabledExtensionCount;
  const char* const* ppEnabledExtensionNames;
  const void* pEnabledFeatures;
};
struct PhysicalDeviceIdProperties {
  std::int32_t sType;
  void* pNext;
  std::uint8_t deviceUUID[16];
  std::uint8_t driverUUID[16];
  std::uint8_t deviceLUID[8];
  std::uint32_t deviceNodeMask;
  std::uint32_t deviceLUIDValid;
};
struct PhysicalDeviceProperties2 {
  std::int32_t sType;
  void* pNext;
  // VkPhysicalDeviceProperties: 824 bytes in 1.3.239; the driver writes no more than
  // that, so room to spare is safe and its fields are not needed here.
  alignas(8) unsigned char properties[2048];
};
struct SemaphoreCreateInfo {
  std::int32_t sType;
  const void* pNext;
  std::uint32_t flags;
};
struct ExportSemaphoreCreateInfo {
  std::int32_t sType;
  const void* pNext;
  std::uint32_t handleTypes;
};
struct SemaphoreGetFdInfo {
  std::int32_t sType;
  const void* pNext;
  Semaphore semaphore;
  std::uint32_t handleType;
};
struct ExtensionProperties {
  char extensionName[256];
  std::uint32_t specVersion;
};

using GetInstanceProcAddr = VoidFunction (*)(Instance, const char*);
using CreateInstance = Result (*)(const InstanceCreateInfo*, const void*, Instance*);
using DestroyInstance = void (*)(Instance, const void*);
using EnumeratePhysicalDevices = Result (*)(Instance, std::uint32_t*, PhysicalDevice*);
using GetPhysicalDeviceProperties2 = void (*)(PhysicalDevice, PhysicalDeviceProperties2*);
using EnumerateDeviceExtensionProperties = Result (*)(PhysicalDevice, const char*, std::uint32_t*,
                                                      ExtensionProperties*);
using CreateDevice = Result (*)(PhysicalDevice, const DeviceCreateInfo*, const void*, Device*);
using DestroyDevice = void (*)(Device, const void*);
using GetDeviceProcAddr = VoidFunction (*)(Device, const char*);
using CreateSemaphore = Result (*)(Device, const SemaphoreCreateInfo*, const void*, Semaphore*);
using DestroySemaphore = void (*)(Device, Semaphore, const void*);
using GetSemaphoreFd = Result (*)(Device, const SemaphoreGetFdInfo*, int*);

}  // namespace vk

struct ExportableSemaphores::Impl {
  void* library = nullptr;
  vk::Instance instance = nullptr;
  vk::Device device = nullptr;
  vk::DestroyInstance destroy_instance = nullptr;
  vk::DestroyDevice destroy_device = nullptr;
  vk::DestroySemaphore destroy_semaphore = nullptr;
  vk::GetSemaphoreFd get_fd = nullptr;
  std::vector<vk::Semaphore> semaphores;

  ~Impl() {
    if (device && destroy_device) {  // both set together, before any semaphore is made
      for (vk::Semaphore s : semaphores) destroy_semaphore(device, s, nullptr);
      destroy_device(device, nullptr);
    }
    if (instance && destroy_instance) destroy_instance(instance, nullptr);
    if (library) dlclose(library);
  }
};

namespace {

void check_vk(vk::Result r, const char* what) {
  if (r != 0) throw Error(std::string("Vulkan ") + what + " failed (VkResult " + std::to_string(r) + ")");
}

template <typename F>
F instance_proc(vk::GetInstanceProcAddr gipa, vk::Instance instance, const char* name) {
  const vk::VoidFunction f = gipa(instance, name);
  if (!f) throw Error(std::string("the Vulkan loader has no ") + name);
  return reinterpret_cast<F>(f);
}

}  // namespace

ExportableSemaphores::ExportableSemaphores(const DeviceUuid& device_uuid, int count)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!m.library)
    throw Error("no Vulkan loader (libvulkan.so.1), which makes the semaphores GL and CUDA share: " +
                std::string(dlerror()));
  const auto gipa = reinterpret_cast<vk::GetInstanceProcAddr>(dlsym(m.library, "vkGetInstanceProcAddr"));
  if (!gipa) throw Error("libvulkan.so.1 has no vkGetInstanceProcAddr");

  const vk::ApplicationInfo app{vk::kApplicationInfo, nullptr, "stencilscope", 1, "stencilscope", 1,
                                vk::kApiVersion11};
  const vk::InstanceCreateInfo instance_info{vk::kInstanceCreateInfo, nullptr, 0, &app, 0, nullptr, 0, nullptr};
  const auto create_instance = instance_proc<vk::CreateInstance>(gipa, nullptr, "vkCreateInstance");
  check_vk(create_instance(&instance_info, nullptr, &m.instance), "vkCreateInstance (1.1)");
  m.destroy_instance = reinterpret_cast<vk::DestroyInstance>(gipa(m.instance, "vkDestroyInstance"));
  if (!m.destroy_instance) throw Error("the Vulkan loader has no vkDestroyInstance");

  const auto enumerate = instance_proc<vk::EnumeratePhysicalDevices>(gipa, m.instance, "vkEnumeratePhysicalDevices");
  const auto properties2 =
      instance_proc<vk::GetPhysicalDeviceProperties2>(gipa, m.instance, "vkGetPhysicalDeviceProperties2");
  std::uint32_t n = 0;
  check_vk(enumerate(m.instance, &n, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<vk::PhysicalDevice> devices(n);
  check_vk(enumerate(m.instance, &n, devices.data()), "vkEnumeratePhysicalDevices");
  vk::PhysicalDevice chosen = nullptr;
  for (vk::PhysicalDevice d : devices) {
    vk::PhysicalDeviceIdProperties id{};
    id.sType = vk::kPhysicalDeviceIdProperties;
    vk::PhysicalDeviceProperties2 props{};
    props.sType = vk::kPhysicalDeviceProperties2;
    props.pNext = &id;
    properties2(d, &props);
    if (std::memcmp(id.deviceUUID, device_uuid.data(), device_uuid.size()) == 0) chosen = d;
  }
  if (!chosen)
    throw Error("no Vulkan device is the CUDA device (" + std::to_string(n) +
                " Vulkan devices; is the NVIDIA Vulkan driver installed?)");

  const auto extensions =
      instance_proc<vk::EnumerateDeviceExtensionProperties>(gipa, m.instance, "vkEnumerateDeviceExtensionProperties");
  std::uint32_t extension_count = 0;
  check_vk(extensions(chosen, nullptr, &extension_count, nullptr), "vkEnumerateDeviceExtensionProperties");
  std::vector<vk::ExtensionProperties> available(extension_count);
  check_vk(extensions(chosen, nullptr, &extension_count, available.data()), "vkEnumerateDeviceExtensionProperties");
  const char* const wanted = "VK_KHR_external_semaphore_fd";
  bool found = false;
  for (const auto& e : available) found = found || std::strcmp(e.extensionName, wanted) == 0;
  if (!found) throw Error("the Vulkan device has no VK_KHR_external_semaphore_fd");

  // Vulkan 1.0 asks for at least one queue; family 0 always exists. It is never used.
  const float priority = 0.0f;
  const vk::DeviceQueueCreateInfo queue{vk::kDeviceQueueCreateInfo, nullptr, 0, 0, 1, &priority};
  const vk::DeviceCreateInfo device_info{vk::kDeviceCreateInfo, nullptr, 0, 1, &queue, 0, nullptr, 1, &wanted, nullptr};
  const auto create_device = instance_proc<vk::CreateDevice>(gipa, m.instance, "vkCreateDevice");
  check_vk(create_device(chosen, &device_info, nullptr, &m.device), "vkCreateDevice");
  const auto gdpa = instance_proc<vk::GetDeviceProcAddr>(gipa, m.instance, "vkGetDeviceProcAddr");
  auto device_proc = [&](const char* name) {
    const vk::VoidFunction f = gdpa(m.device, name);
    if (!f) throw Error(std::string("the Vulkan device has no ") + name);
    return f;
  };
  const auto destroy_device = reinterpret_cast<vk::DestroyDevice>(device_proc("vkDestroyDevice"));
  m.destroy_semaphore = reinterpret_cast<vk::DestroySemaphore>(device_proc("vkDestroySemaphore"));
  m.destroy_device = destroy_device;
  m.get_fd = reinterpret_cast<vk::GetSemaphoreFd>(device_proc("vkGetSemaphoreFdKHR"));
  const auto create_semaphore = reinterpret_cast<vk::CreateSemaphore>(device_proc("vkCreateSemaphore"));

  const vk::ExportSemaphoreCreateInfo exportable{vk::kExportSemaphoreCreateInfo, nullptr, vk::kOpaqueFdBit};
  const vk::SemaphoreCreateInfo semaphore_info{vk::kSemaphoreCreateInfo, &exportable, 0};
  for (int k = 0; k < count; ++k) {
    vk::Semaphore s = nullptr;
    check_vk(create_semaphore(m.device, &semaphore_info, nullptr, &s), "vkCreateSemaphore (exportable)");
    m.semaphores.push_back(s);
  }
}

ExportableSemaphores::~ExportableSemaphores() = default;
ExportableSemaphores::ExportableSemaphores(ExportableSemaphores&&) noexcept = default;
ExportableSemaphores& ExportableSemaphores::operator=(ExportableSemaphores&&) noexcept = default;

int ExportableSemaphores::export_fd(int k) const {
  const vk::SemaphoreGetFdInfo info{vk::kSemaphoreGetFdInfo, nullptr, impl_->semaphores.at(static_cast<std::size_t>(k)),
                                    vk::kOpaqueFdBit};
  int fd = -1;
  check_vk(impl_->get_fd(impl_->device, &info, &fd), "vkGetSemaphoreFdKHR");
  return fd;
}

}  // namespace ss::render
