#include "cli/compile_command.h"

#include "util/progress.h"

#include <memory>

#include "cli/compile_options.h"

namespace kiln {

void add_compile_command(CLI::App& app) {
  struct Args {
    std::string model;
    CompileOptions opts;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("compile", "compile an ONNX or TFLite model into C files for a microcontroller");
  cmd->add_option("MODEL", args->model, "the .onnx or .tflite file")->required();
  cmd->add_option("-o,--output", args->opts.output_dir, "output folder (created; existing files are overwritten)")
      ->required();
  add_compile_options(cmd, &args->opts);
  cmd->callback([args]() {
    ProgressDisplay progress(!args->opts.quiet && stderr_is_terminal());  // stage names on a terminal
    compile_model(args->model, args->opts);
  });
}

}  // namespace kiln
