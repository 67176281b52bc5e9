// The text of every generated file lives in templates/ (mustache). This renders
// one template with the emitter's data. The output is C: a {{value}} is escaped
// with c_text (emit/c_names.h), safe in a string literal and in a comment, never
// HTML-escaped; a {{{value}}} (code the emitter built) is inserted verbatim.
#pragma once

#include <filesystem>
#include <string>

#include <kainjow/mustache.hpp>

namespace kiln {

using TemplateData = kainjow::mustache::data;
using TemplateList = kainjow::mustache::list;
using TemplateObject = kainjow::mustache::object;

// Renders templates/<name>. Throws CompileError if the template is missing or invalid.
std::string render_template(const std::string& name, const TemplateData& data);

// templates/<name> as a partial: set it in the data under a key and a template
// includes it with {{>key}}, rendered in the context where it appears. A partial
// is meant to be used inside a line: its file's final newline is dropped.
TemplateData template_partial(const std::string& name);

}  // namespace kiln
