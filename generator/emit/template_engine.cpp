#include "emit/template_engine.h"

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "emit/c_names.h"
#include "util/error.h"
#include "util/paths.h"
#include "util/quoted.h"

namespace kiln {

namespace {

std::string read_template(const std::string& name) {
  auto path = kiln_home() / "templates" / name;
  std::ifstream in(path);
  if (!in) throw CompileError("template " + in_quotes(path.string()) + " not found (set KILN_HOME to the Kiln folder)");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string render_template(const std::string& name, const TemplateData& data) {
  // Templates are read and parsed once per run (a compile renders each a few
  // times; parsing was some 7% of a small model's compile).
  static std::map<std::string, std::unique_ptr<kainjow::mustache::mustache>> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    auto tmpl = std::make_unique<kainjow::mustache::mustache>(read_template(name));
    if (!tmpl->is_valid()) throw CompileError("template " + in_quotes(name) + ": " + tmpl->error_message());
    // {{value}}: names and other text, escaped for C strings and comments;
    // {{{value}}}: code the emitter built from identifiers and numbers, verbatim.
    tmpl->set_custom_escape([](const std::string& v) { return c_text(v); });
    it = cache.emplace(name, std::move(tmpl)).first;
  }
  std::string out = it->second->render(data);
  if (!it->second->is_valid()) throw CompileError("template " + in_quotes(name) + ": " + it->second->error_message());
  return out;
}

TemplateData template_partial(const std::string& name) {
  // Read once per run; the engine parses a partial where it is used.
  static std::map<std::string, std::string> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    std::string text = read_template(name);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    it = cache.emplace(name, std::move(text)).first;
  }
  const std::string text = it->second;
  return TemplateData(kainjow::mustache::partial([text] { return text; }));
}

}  // namespace kiln
