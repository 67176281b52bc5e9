// The ONNX backend test suite on disk: one entry per test folder
// (<root>/<suite>/<test>/model.onnx + test_data_set_*), with what the runner and
// STATUS.md need to know about its model (op types, whether it is float32-only),
// read with ONNX's own protobuf classes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace kiln::conformance {

struct TestEntry {
  std::string suite;  // "node", "pytorch-converted", ...
  std::string name;   // "test_abs"
  std::filesystem::path dir;
  std::vector<std::filesystem::path> data_sets;  // sorted test_data_set_* folders
  std::set<std::string> ops;                     // op types, incl. those in subgraphs (If/Loop/Scan bodies)
  bool float32_only = false;  // every graph input (not an initializer) and output is a float32 tensor
  uint64_t data_bytes = 0;    // size of model.onnx plus all .pb files (to batch QEMU images)
  std::string model_error;    // non-empty if model.onnx could not be parsed

  std::string id() const { return suite + "/" + name; }  // the key in expected_failures.txt
};

// The four suites, in the order STATUS.md lists them.
const std::vector<std::string>& default_suites();

// Lists every test folder (one that has model.onnx) of the given suites, sorted.
std::vector<TestEntry> discover_tests(const std::filesystem::path& root, const std::vector<std::string>& suites);

}  // namespace kiln::conformance
