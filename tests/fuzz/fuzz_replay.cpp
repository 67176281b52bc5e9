// Replays inputs through the fuzz harness without libFuzzer (ordinary build): each
// file is compiled in memory as the targets do (fuzz_compile.h), and an accepted
// module goes through the whole module oracle (module_oracle.h, compiler and run
// on). Unlike the fuzz targets it does not stop at a breach: it prints one line
// per file and exits 1 if any breached. For a campaign's artifacts, a seed corpus
// before a campaign, or a finding after its fix.
//   fuzz_replay ORACLE_DIR FILE...
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_compile.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: fuzz_replay ORACLE_DIR FILE...\n";
    return 2;
  }
  kiln::fuzz::OracleOptions o;
  o.work_dir = argv[1];
  kiln::fuzz::set_module_oracle(o);
  int breaches = 0, compiled = 0, rejected = 0;
  for (int i = 2; i < argc; ++i) {
    std::ifstream f(argv[i], std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const auto format = bytes.size() >= 8 && std::string(bytes.begin() + 4, bytes.begin() + 8) == "TFL3"
                            ? kiln::fuzz::Format::Tflite
                            : kiln::fuzz::Format::Onnx;
    try {
      const auto outcome = kiln::fuzz::compile_input(bytes.data(), bytes.size(), format);
      (outcome == kiln::fuzz::Outcome::Compiled ? compiled : rejected)++;
    } catch (const std::exception& e) {
      ++breaches;
      std::cout << "BREACH " << argv[i] << ": " << e.what() << "\n";
    }
  }
  std::cout << "fuzz_replay: " << argc - 2 << " inputs, " << compiled << " compiled, " << rejected << " refused, "
            << breaches << " breaches\n";
  return breaches ? 1 : 0;
}
