#include "emit/model_library_format.h"

#include <cstdio>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/version.h"
#include "util/quoted.h"

namespace kiln {

namespace fs = std::filesystem;

namespace {

// A minimal POSIX ustar writer: regular files only, names under 100 bytes.
class TarWriter {
 public:
  explicit TarWriter(const fs::path& p) : out_(p, std::ios::binary) {
    if (!out_) throw CompileError("cannot write " + in_quotes(p.string()));
  }
  void add(const std::string& name, const std::string& data) {
    if (name.size() >= 100) throw CompileError("model library format: path too long: " + name);
    char h[512] = {};
    std::snprintf(h, 100, "%s", name.c_str());
    std::snprintf(h + 100, 8, "%07o", 0644);
    std::snprintf(h + 108, 8, "%07o", 0);
    std::snprintf(h + 116, 8, "%07o", 0);
    std::snprintf(h + 124, 12, "%011llo", static_cast<unsigned long long>(data.size()));
    std::snprintf(h + 136, 12, "%011o", 0);  // fixed mtime: byte-identical archives
    h[156] = '0';
    std::snprintf(h + 257, 6, "ustar");
    h[263] = '0';
    h[264] = '0';
    for (int i = 148; i < 156; ++i) h[i] = ' ';
    unsigned sum = 0;
    for (unsigned char c : h) sum += c;
    std::snprintf(h + 148, 8, "%06o", sum);
    out_.write(h, 512);
    out_.write(data.data(), std::streamsize(data.size()));
    std::string pad((512 - data.size() % 512) % 512, '\0');
    out_.write(pad.data(), std::streamsize(pad.size()));
  }
  void close() {
    std::string end(1024, '\0');
    out_.write(end.data(), 1024);
    if (!out_) throw CompileError("error while writing the model library format archive");
  }

 private:
  std::ofstream out_;
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

void write_model_library_format(const CompiledModule& m, const fs::path& tar_path) {
  TarWriter tar(tar_path);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(m.dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string ext = f.extension().string();
    if (ext == ".c") tar.add("codegen/host/src/" + f.filename().string(), read_all(f));
    else if (ext == ".h") tar.add("codegen/host/include/" + f.filename().string(), read_all(f));
  }
  std::vector<fs::path> crt;
  for (const auto& e : fs::recursive_directory_iterator(m.crt_dir))
    if (e.is_regular_file()) crt.push_back(e.path());
  std::sort(crt.begin(), crt.end());
  for (const auto& f : crt) tar.add("runtime/" + fs::relative(f, m.crt_dir).generic_string(), read_all(f));

  nlohmann::json j;
  j["version"] = 7;
  j["model_name"] = m.module_name;
  j["generator"] = kiln_identity();
  j["executors"] = {"aot"};
  j["style"] = "full-model";
  for (const auto& p : m.pools)
    j["memory"][p.is_workspace ? "workspace_pools" : "parameter_pools"].push_back(
        {{"name", p.name}, {"size_bytes", p.size_bytes}, {"alignment", p.alignment}, {"user", p.is_user_pool}});
  tar.add("metadata.json", j.dump(2) + "\n");
  tar.close();
}

}  // namespace kiln
