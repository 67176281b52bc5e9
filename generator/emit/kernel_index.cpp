#include "emit/kernel_index.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

namespace kiln {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string w; in >> w;) v.push_back(w);
  return v;
}

// The kiln_* identifiers of some C text (calls, and names passed as pointers).
std::set<std::string> kiln_identifiers(const std::string& text) {
  std::set<std::string> ids;
  auto is_id = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < text.size();) {
    if (!is_id(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && is_id(text[j])) ++j;
    if (text.compare(i, 5, "kiln_") == 0) ids.insert(text.substr(i, j - i));
    i = j;
  }
  return ids;
}

}  // namespace

std::vector<std::string> all_runtime_files(const fs::path& crt_dir) {
  std::vector<std::string> v;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(crt_dir / "src", ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".c")
      v.push_back(it->path().lexically_relative(crt_dir).generic_string());
  std::sort(v.begin(), v.end());
  return v;
}

KernelIndex KernelIndex::parse(const std::string& text) {
  KernelIndex k;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    size_t t1 = line.find('\t');
    if (t1 == std::string::npos) continue;
    size_t t2 = line.find('\t', t1 + 1);
    File f;
    f.defines = words(line.substr(t1 + 1, t2 == std::string::npos ? std::string::npos : t2 - t1 - 1));
    if (t2 != std::string::npos) f.uses = words(line.substr(t2 + 1));
    std::string path = line.substr(0, t1);
    for (const auto& d : f.defines) k.definer_.emplace(d, path);
    k.files_[path] = std::move(f);
  }
  return k;
}

KernelIndex KernelIndex::load(const fs::path& index_file) {
  if (index_file.empty()) return {};
  std::ifstream in(index_file, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return parse(s.str());
}

std::vector<std::string> KernelIndex::needed_files(const fs::path& crt_dir,
                                                   const std::vector<std::string>& module_texts) const {
  std::vector<std::string> all = all_runtime_files(crt_dir);
  if (files_.empty()) return all;
  std::set<std::string> present(all.begin(), all.end());
  std::set<std::string> needed;
  std::vector<std::string> work;
  auto need = [&](const std::string& file) {
    if (needed.insert(file).second) work.push_back(file);
  };
  for (const auto& f : all)
    if (f.rfind("src/runtime/", 0) == 0) need(f);
  for (const auto& text : module_texts)
    for (const auto& id : kiln_identifiers(text)) {
      auto it = definer_.find(id);
      if (it != definer_.end()) need(it->second);
      // A kiln_* name the runtime does not define is the module's own (kiln_cnn_run)
      // or a macro/type from the headers; neither needs a file.
    }
  while (!work.empty()) {
    std::string f = work.back();
    work.pop_back();
    if (!present.count(f)) return all;  // the index describes another runtime tree
    auto it = files_.find(f);
    if (it == files_.end()) continue;  // a runtime file built after the index: see below
    for (const auto& u : it->second.uses) {
      auto d = definer_.find(u);
      if (d != definer_.end()) need(d->second);
    }
  }
  // A runtime file the index has never seen (added after the build) may define
  // what the module calls; the index cannot tell, so take everything.
  for (const auto& f : all)
    if (!files_.count(f)) return all;
  return {needed.begin(), needed.end()};
}

}  // namespace kiln
