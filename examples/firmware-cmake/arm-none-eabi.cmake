# CMake toolchain for the MPS2 cores with Debian's gcc-arm-none-eabi. FIRMWARE_BOARD
# picks the core: mps2-an386 (Cortex-M4F, the default), mps2-an505 (Cortex-M33) or
# mps2-an385-m0plus (a Cortex-M0+ build: ARMv6-M, soft float); see CMakeLists.txt.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
# No OS to link a test program against: check the compiler with a static library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES FIRMWARE_BOARD)
if(NOT FIRMWARE_BOARD OR FIRMWARE_BOARD STREQUAL "mps2-an386")
  set(FIRMWARE_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
elseif(FIRMWARE_BOARD STREQUAL "mps2-an505")
  set(FIRMWARE_CPU_FLAGS "-mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16")
elseif(FIRMWARE_BOARD STREQUAL "mps2-an385-m0plus")
  set(FIRMWARE_CPU_FLAGS "-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft")
else()
  message(FATAL_ERROR "FIRMWARE_BOARD=${FIRMWARE_BOARD}: expected mps2-an386, mps2-an505 or mps2-an385-m0plus")
endif()
set(CMAKE_C_FLAGS_INIT "${FIRMWARE_CPU_FLAGS} -ffunction-sections -fdata-sections")
