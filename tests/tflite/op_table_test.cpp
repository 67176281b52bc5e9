// docs/tflite-operators.md is true: its table of TFLite Micro's operators lists
// every operator Kiln's TFLite importer maps, claims a type only for an operator
// the importer maps, and each claim holds in the suite's models
// (tests/tflite/models, tests/data/mlperf-tiny, tests/data/field-tflite): "yes"
// when a model whose outputs an e2e test compares runs it in that type,
// "compiles" when only a model the suite compiles without comparing does.
//
// An operator's type is that of its first float32, int8 or int16 tensor, inputs
// before outputs ("other" when it has none: logical ops on bools). A model counts
// when its reference data sits beside it (NAME/test_data_set_0): the e2e tests
// check it then.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tflite/tflite_file.h"
#include "tflite/tflite_importer.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

const char* kTypes[] = {"float32", "int8", "int16", "other"};

std::string type_of(const tflite::Model& m, const tflite::Operator& op) {
  for (const auto* list : {&op.inputs, &op.outputs})
    for (int t : *list) {
      if (t < 0) continue;
      const DType d = m.tensors[size_t(t)].dtype;
      if (d == DType::Float32) return "float32";
      if (d == DType::Int8) return "int8";
      if (d == DType::Int16) return "int16";
    }
  return "other";
}

// (operator name, type) -> the first test model it runs in: `checked` counts only
// models whose outputs a test compares (reference data beside them), otherwise
// every model the suite compiles.
std::map<std::pair<std::string, std::string>, std::string> covered(bool checked) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  for (const char* dir : {KILN_TFLITE_TESTS "/models", KILN_TEST_DATA "/mlperf-tiny", KILN_TEST_DATA "/field-tflite"}) {
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".tflite") continue;
      fs::path data = e.path();
      data.replace_extension();
      if (checked && !fs::exists(data / "test_data_set_0")) continue;
      const tflite::Model m = tflite::load_tflite(e.path());
      for (const auto& op : m.operators) out.emplace(std::make_pair(op.name, type_of(m, op)), e.path().filename().string());
    }
  }
  return out;
}

struct Row {
  std::map<std::string, std::string> claims;  // type -> "yes", "compiles", "no" or "-"
  int line = 0;
};

// The rows "| NAME | float32 | int8 | int16 | other | notes |" of the table.
std::map<std::string, Row> documented_rows() {
  std::ifstream in(KILN_DOCS "/tflite-operators.md");
  EXPECT_TRUE(in) << "cannot read docs/tflite-operators.md";
  std::map<std::string, Row> rows;
  std::string line;
  int n = 0;
  const std::regex row(R"(^\| `([A-Z0-9_]+(\([A-Za-z0-9_]+\))?)` \| ([^|]*)\| ([^|]*)\| ([^|]*)\| ([^|]*)\|.*$)");
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    Row r;
    r.line = n;
    for (int i = 0; i < 4; ++i) {
      std::string cell = m[3 + i].str();
      while (!cell.empty() && cell.back() == ' ') cell.pop_back();
      EXPECT_TRUE(cell == "yes" || cell == "compiles" || cell == "no" || cell == "-")
          << "docs/tflite-operators.md:" << n << ": cell '" << cell << "' is not yes, compiles, no or -";
      r.claims[kTypes[i]] = cell;
    }
    EXPECT_TRUE(rows.emplace(m[1].str(), r).second) << "docs/tflite-operators.md:" << n << ": " << m[1] << " twice";
  }
  return rows;
}

TEST(TfliteOperatorTable, EveryClaimIsMappedAndTested) {
  const auto rows = documented_rows();
  ASSERT_GT(rows.size(), 100u) << "the table lists TFLite Micro's ~110 operators";
  const auto checked = covered(true), compiled = covered(false);
  std::set<std::string> mapped;
  for (const auto& m : tflite_operator_mappings()) mapped.insert(tflite::builtin_name(m.code));
  for (const auto& [name, row] : rows) {
    bool any = false;
    for (const auto& [type, claim] : row.claims) {
      if (claim == "yes") {
        EXPECT_TRUE(checked.count({name, type}))
            << "docs/tflite-operators.md:" << row.line << ": " << name << " claims " << type
            << ", but no test model with reference outputs runs it on " << type;
      } else if (claim == "compiles") {
        EXPECT_TRUE(compiled.count({name, type}))
            << "docs/tflite-operators.md:" << row.line << ": " << name << " claims to compile on " << type
            << ", but no test model runs it on " << type;
        EXPECT_FALSE(checked.count({name, type}))
            << "docs/tflite-operators.md:" << row.line << ": " << name << " on " << type
            << " is checked by " << checked.at({name, type}) << ": say yes";
      } else {
        continue;
      }
      any = true;
    }
    if (any) EXPECT_TRUE(mapped.count(name)) << "docs/tflite-operators.md:" << row.line << ": " << name
                                             << " is claimed but the importer does not map it";
  }
}

TEST(TfliteOperatorTable, EveryMappedOperatorIsDocumented) {
  const auto rows = documented_rows();
  for (const auto& m : tflite_operator_mappings()) {
    const std::string name = tflite::builtin_name(m.code);
    auto it = rows.find(name);
    ASSERT_NE(it, rows.end()) << name << " is mapped but has no row in docs/tflite-operators.md";
    bool any = false;
    for (const auto& [type, claim] : it->second.claims) any |= claim == "yes" || claim == "compiles";
    EXPECT_TRUE(any) << name << " is mapped but its row in docs/tflite-operators.md claims no type";
  }
}

}  // namespace
}  // namespace kiln
