#include "emit/template_engine.h"

#include <fstream>
#include <map>
#include <sstream>

#include "emit/c_names.h"
#include "util/error.h"
#include "util/paths.h"

namespace kiln {

std::string render_template(const std::string& name, const TemplateData& data) {
  static std::map<std::string, std::string> cache;  // templates are read once per run
  auto it = cache.find(name);
  if (it == cache.end()) {
    auto path = kiln_home() / "templates" / name;
    std::ifstream in(path);
    if (!in) throw CompileError("template '" + path.string() + "' not found (set KILN_HOME to the Kiln folder)");
    std::stringstream s;
    s << in.rdbuf();
    it = cache.emplace(name, s.str()).first;
  }
  kainjow::mustache::mustache tmpl(it->second);
  if (!tmpl.is_valid()) throw CompileError("template '" + name + "': " + tmpl.error_message());
  // {{value}}: names and other text, escaped for C strings and comments;
  // {{{value}}}: code the emitter built from identifiers and numbers, verbatim.
  tmpl.set_custom_escape([](const std::string& s) { return c_text(s); });
  return tmpl.render(data);
}

}  // namespace kiln
