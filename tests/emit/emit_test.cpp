// The emitter, end to end: a hand-built program (no lowering involved) is emitted,
// compiled with the host compiler under ASan/UBSan with -Werror, and run by a C
// driver that checks the generated API (fixture/emit_main.c).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "emit/c_names.h"
#include "emit/emitter.h"
#include "util/paths.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

TEST(CNames, SanitizesAndDeduplicates) {
  EXPECT_EQ(c_identifier("conv1/out:0"), "conv1_out_0");
  EXPECT_EQ(c_identifier("0abc"), "t_0abc");
  EXPECT_EQ(c_identifier(""), "t");
  EXPECT_EQ(c_macro_name("sram-bank"), "SRAM_BANK");
  EXPECT_TRUE(is_c_identifier("my_model2"));
  EXPECT_FALSE(is_c_identifier("2model"));
  EXPECT_FALSE(is_c_identifier("my-model"));
  CNameTable t;
  EXPECT_EQ(t.unique("x"), "x");
  EXPECT_EQ(t.unique("x"), "x_1");
  EXPECT_EQ(t.unique("x:"), "x_");
}

// docs/user-guide.md, "Names in the generated C".
TEST(CNames, NeverReservedAndUniqueAfterUpperCasing) {
  CNameTable t;
  EXPECT_EQ(t.unique("__LINE__"), "t__LINE__");
  EXPECT_EQ(t.unique("_Bool"), "t_Bool");
  EXPECT_EQ(t.unique("KILN_OK"), "t_KILN_OK");
  EXPECT_EQ(t.unique("INT32_MAX"), "INT32_MAX_");
  EXPECT_EQ(t.unique("class"), "class_");
  EXPECT_EQ(t.unique("tanh"), "tanh");  // a math function: only ever a function-like macro
  EXPECT_EQ(t.unique("ab"), "ab");
  EXPECT_EQ(t.unique("Ab"), "Ab_1");
  EXPECT_EQ(t.unique("AB_1"), "AB_1_1");
  EXPECT_EQ(t.unique("_x"), "_x");  // reserved only at file scope; members are fine
  EXPECT_TRUE(is_reserved_c_name("__func__"));
  EXPECT_TRUE(is_reserved_c_name("SIZE_MAX"));
  EXPECT_TRUE(is_reserved_c_name("UINT_LEAST16_MAX"));
  EXPECT_TRUE(is_reserved_c_name("DBL_EPSILON"));
  EXPECT_FALSE(is_reserved_c_name("input"));
  for (const char* name : {"__LINE__", "__FILE__", "__DATE__", "__STDC__", "__STDC_VERSION__", "__func__",
                           "INT32_MAX", "SIZE_MAX", "NULL", "int"})
    EXPECT_FALSE(is_reserved_c_name(CNameTable().unique(name))) << name;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Fixture {
  Graph g;
  BufferizedProgram prog;
  EmitPlan plan;
};

// x (float [1,2]... [2,2]) -> copy -> t (workspace) -> copy -> y; one unused constant.
void build(Fixture& f) {
  Value* x = f.g.add_value("x", DType::Float32, {2, 2});
  x->is_graph_input = true;
  f.g.inputs.push_back(x);
  Value* y = f.g.add_value("y", DType::Float32, {2, 2});
  y->is_graph_output = true;
  f.g.outputs.push_back(y);

  auto buf = [&](const char* name, BufferKind k, uint64_t size, int io) {
    Buffer b;
    b.id = int(f.prog.buffers.size());
    b.name = name;
    b.kind = k;
    b.size_bytes = size;
    b.io_index = io;
    f.prog.buffers.push_back(b);
  };
  buf("x", BufferKind::Input, 16, 0);
  buf("t", BufferKind::Activation, 16, -1);
  buf("y", BufferKind::Output, 16, 0);
  buf("c", BufferKind::Constant, 4, -1);
  f.prog.buffers[3].constant = Constant::from_floats({1}, {1.0f});  // bytes 00 00 80 3f
  auto copy = [&](int from, int to) {
    ScheduledOp op;
    op.label = "copy";
    op.call.call = "kiln_copy_bytes($out0, $in0, 16u)";
    op.inputs = {{from, 0}};
    op.outputs = {{to, 0}};
    op.input_dtypes = {DType::Float32};
    op.output_dtypes = {DType::Float32};
    f.prog.ops.push_back(op);
  };
  copy(0, 1);
  copy(1, 2);
  f.prog.buffers[1].first = 0;
  f.prog.buffers[1].last = 2;

  EmitPool sram;
  sram.name = "sram";
  sram.is_user = true;
  sram.size_bytes = 32;  // t lives at offset 16
  EmitPool flash;
  flash.name = "flash";
  flash.is_workspace = false;
  flash.is_user = true;
  flash.size_bytes = 4;
  flash.section = ".rodata.kiln_test";
  f.plan.pools = {sram, flash};
  f.plan.buffer_pool = {-1, 0, -1, 1};
  f.plan.buffer_offset = {0, 16, 0, 0};
}

TEST(Emitter, GeneratedModuleCompilesRunsAndChecksPointers) {
  Fixture f;
  build(f);
  fs::path out = fs::temp_directory_path() / ("kiln_emit_test_" + std::to_string(::getpid()));
  fs::remove_all(out);
  EmitOptions o;
  o.module_name = "em";
  o.output_dir = out;
  o.model_file = "hand-built";
  CompiledModule m = emit_module(f.g, f.prog, f.plan, o);

  ASSERT_EQ(m.module_name, "em");
  ASSERT_EQ(m.pools.size(), 2u);
  EXPECT_EQ(m.pools[0].size_macro, "KILN_EM_SRAM_WORKSPACE_SIZE");
  EXPECT_EQ(m.pools[1].size_macro, "KILN_EM_FLASH_PARAMETER_SIZE");
  std::string header = read(out / "metadata.h");
  EXPECT_NE(header.find("#define KILN_EM_SRAM_WORKSPACE_SIZE 32u"), std::string::npos);
  EXPECT_NE(header.find("#define KILN_EM_INPUT_X_SIZE 16u"), std::string::npos);
  EXPECT_NE(header.find("int32_t kiln_em_run("), std::string::npos);
  std::string params = read(out / "parameters_flash.c");
  EXPECT_NE(params.find("0x00,0x00,0x80,0x3f,"), std::string::npos);
  EXPECT_NE(params.find("KILN_SECTION(\".rodata.kiln_test\")"), std::string::npos);
  std::string ops = read(out / "operators.c");
  EXPECT_NE(ops.find("kiln_ws_sram + 16u"), std::string::npos);

  std::string cmd = "cc -std=c99 -Wall -Wextra -Werror -pedantic -g -fsanitize=address,undefined "
                    "-fno-sanitize-recover=all -I" KILN_EMIT_FIXTURE_DIR " -I" + out.string() + " -I" +
                    (out / "crt/include").string();
  for (const auto& s : m.sources) cmd += " " + s.string();
  cmd += " " + (out / "crt/src/runtime/kiln_crt.c").string();
  cmd += " " KILN_EMIT_FIXTURE_DIR "/emit_main.c -o " + (out / "emit_main").string() + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string log;
  char b[512];
  while (fgets(b, sizeof b, p)) log += b;
  ASSERT_EQ(pclose(p), 0) << "compiling the generated module failed:\n" << log;

  p = popen(((out / "emit_main").string() + " 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  log.clear();
  while (fgets(b, sizeof b, p)) log += b;
  EXPECT_EQ(pclose(p), 0) << log;
  EXPECT_NE(log.find("EMIT-OK"), std::string::npos) << log;
  if (!HasFailure()) fs::remove_all(out);
}

TEST(Emitter, RejectsModuleNamesThatAreNotIdentifiers) {
  Fixture f;
  build(f);
  EmitOptions o;
  o.module_name = "my-model";
  o.output_dir = fs::temp_directory_path() / "kiln_emit_bad_name";
  EXPECT_THROW(emit_module(f.g, f.prog, f.plan, o), std::exception);
}

}  // namespace
}  // namespace kiln
