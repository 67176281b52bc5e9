// Model text (tensor, node and attribute names, attribute strings, paths) as it
// goes into an error or warning message: every message stays one readable line
// whatever the model holds. Each place that puts model text into a message puts it
// through in_quotes() (or escaped(), for text that is not set off by quotes).
#pragma once

#include <cstddef>
#include <string>

namespace kiln {

// The longest piece of model text a message shows, in bytes of its escaped form.
constexpr size_t kMaxQuotedBytes = 120;
// The longest message of ONNX's own (checker, shape inference) a message shows: it
// quotes the model's names itself, so it goes through escaped() whole.
constexpr size_t kMaxOnnxMessageBytes = 400;
// The longest message of the planner's (which includes nothing of Kiln's, so it
// quotes names raw) a message shows; its pool listings run long.
constexpr size_t kMaxPlannerMessageBytes = 2000;

// `text` with everything that could break or disguise a line escaped: a control
// byte as \n, \r, \t or \xNN, a backslash as \\, a byte that is not valid UTF-8 as
// \xNN, and the invisible or reordering code points (C1 controls, zero-width and
// bidirectional marks such as U+202E, line and paragraph separators, BOM) as
// \uNNNN. Longer than `max` bytes once escaped: cut at `max` with "..." and the
// original length: "abcd... (10240 bytes)".
std::string escaped(const std::string& text, size_t max = kMaxQuotedBytes);
// escaped() in single quotes, a quote inside escaped as \': 'conv1/out'. A cut
// text: 'abcd...' (10240 bytes).
std::string in_quotes(const std::string& text, size_t max = kMaxQuotedBytes);
// A message of ONNX's own (checker, shape inference), which spans several lines
// and quotes the model's names as they are: its line breaks become spaces,
// trailing spaces go, and the rest is escaped() up to kMaxOnnxMessageBytes.
std::string onnx_message_line(std::string text);

}  // namespace kiln
